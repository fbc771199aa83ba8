import Foundation
import NowSimTesting
import Testing

@testable import NowSim

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(5))) struct HTTPServerRequestTests {
    @Test func getDecodesPathQueryAndHeaders() async throws {
        let server = try startTestServer()
        defer { server.stop() }
        let rawQuery =
            "sysparm_query=active%3Dtrue%5Epriority%3C%3D2%5EORDERBYnumber&sysparm_fields=number,short_description"
            + "&name=a+b%20c&empty=&flag&check=%E2%9C%93&sysparm_query=caller_id.name%3E%3DA%40x%2Cy&plus=%2B"
        var request = URLRequest(
            url: URL(string: "http://127.0.0.1:\(server.port)/api/now/table/my%20table?\(rawQuery)")!)
        request.setValue("Text-Value", forHTTPHeaderField: "X-Custom-Header")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await makeSession().data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let echo = try Echo(data)
        #expect(echo.method == "GET")
        #expect(echo.path == "/api/now/table/my table")
        #expect(echo.rawQuery == rawQuery)
        #expect(
            echo.query == [
                ["sysparm_query", "active=true^priority<=2^ORDERBYnumber"],
                ["sysparm_fields", "number,short_description"],
                ["name", "a b c"],
                ["empty", ""],
                ["flag", ""],
                ["check", "✓"],
                ["sysparm_query", "caller_id.name>=A@x,y"],
                ["plus", "+"],
            ])
        #expect(echo.headers["x-custom-header"] == "Text-Value")
        #expect(echo.headers["accept"] == "application/json")
        #expect(echo.headers["host"] == "127.0.0.1:\(server.port)")
        #expect(echo.bodyLength == 0)
        #expect(echo.secure == false)
        #expect(echo.remote == "127.0.0.1")
    }

    @Test func formEncodedPostArrivesAsRawBody() async throws {
        let server = try startTestServer()
        defer { server.stop() }
        let form = "grant_type=password&client_id=abc&username=admin&password=p%40ss+word"
        let result = try await curl([
            "-H", "Content-Type: application/x-www-form-urlencoded", "--data-binary", form,
            "http://127.0.0.1:\(server.port)/oauth_token.do",
        ])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let echo = try Echo(result.stdout)
        #expect(echo.method == "POST")
        #expect(echo.bodyText == form)
        #expect(echo.bodyLength == form.utf8.count)
        #expect(echo.query.isEmpty)
    }

    @Test func fiveMegabytePostRoundTripsExactly() async throws {
        let server = try startTestServer()
        defer { server.stop() }
        try await withScratchDirectory { (directory: URL) in
            var generator = SystemRandomNumberGenerator()
            let body = (0..<(5 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let input = directory.appendingPathComponent("in.bin")
            let output = directory.appendingPathComponent("out.bin")
            try Data(body).write(to: input)
            // curl sends "Expect: 100-continue" for a body this large; the server must answer it.
            let result = try await curl([
                "-o", output.path, "-w", "%{http_code}", "--data-binary", "@\(input.path)",
                "-H", "Content-Type: application/octet-stream", "http://127.0.0.1:\(server.port)/body",
            ])
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.text == "200")
            let echoed = try Data(contentsOf: output)
            #expect(echoed.count == body.count)
            #expect(echoed == Data(body))
        }
    }

    @Test(arguments: [0, 1, 1000, 1 << 20, 3_000_001])
    func responseBodiesArriveExactly(size: Int) async throws {
        let server = try startTestServer()
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/bytes?n=\(size)")!
        let (data, response) = try await makeSession().data(from: url)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Length") == "\(size)")
        #expect(http.value(forHTTPHeaderField: "Date") != nil)
        #expect(data == Data(pattern(size)))
    }

    @Test func headSendsHeadersWithBodyLengthButNoBody() async throws {
        let server = try startTestServer()
        defer { server.stop() }
        let bytes = try await rawExchange(
            port: server.port,
            request: "HEAD /bytes?n=12345 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let (head, rest) = splitResponse(bytes)
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("content-length: 12345"), "\(head)")
        #expect(rest.isEmpty, "HEAD response carried \(rest.count) body bytes")
    }

    @Test func serverOwnsContentLengthAndStatus() async throws {
        let server = try startTestServer()
        defer { server.stop() }
        let bytes = try await rawExchange(
            port: server.port,
            request: "GET /status?code=204&body=stray HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let (head, rest) = splitResponse(bytes)
        #expect(head.hasPrefix("HTTP/1.1 204"), "\(head)")
        #expect(!head.contains("999"), "the handler's Content-Length must not reach the wire: \(head)")
        #expect(head.contains("X-Status: 204"))
        #expect(rest.isEmpty)

        let created = try await curl(["-i", "http://127.0.0.1:\(server.port)/status?code=201"])
        #expect(created.text.hasPrefix("HTTP/1.1 201"))
        #expect(created.text.lowercased().contains("content-length: 0"))

        let invalid = try await curl([
            "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/status?code=42",
        ])
        #expect(invalid.text == "500")
    }

    @Test func keepAliveReusesOneConnection() async throws {
        let server = try startTestServer()
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let result = try await curl([
            "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{num_connects}\n",
            "\(base)/bytes?n=100000", "\(base)/echo?second", "\(base)/bytes?n=10",
        ])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.text == "1\n0\n0\n", "connections per transfer: \(result.text)")
    }

    @Test func hundredConcurrentRequestsAllSucceed() async throws {
        let handler = TestHandler()
        let server = try startTestServer(handler: handler)
        defer { server.stop() }
        let session = makeSession(connections: 100)
        let port = server.port
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<100 {
                group.addTask {
                    let path = index % 2 == 0 ? "/slow?ms=30&i=\(index)" : "/bytes?n=\(10_000 + index)"
                    let (data, response) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
                    let ok =
                        (response as? HTTPURLResponse)?.statusCode == 200
                        && (index % 2 == 0 ? data == Data("slow".utf8) : data == Data(pattern(10_000 + index)))
                    return (index, ok)
                }
            }
            var collected: [Int: Bool] = [:]
            for try await (index, ok) in group { collected[index] = ok }
            return collected
        }
        #expect(results.count == 100)
        #expect(results.values.allSatisfy { $0 })
        #expect(handler.maxConcurrent > 1, "the handler never ran on two threads at once")
        #expect(server.liveConnectionCount > 0, "URLSession should still hold keep-alive connections")
        server.stop()  // closes the idle keep-alive connections
        #expect(server.liveConnectionCount == 0)
    }

    @Test func requestBodyOverTheLimitIs413() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.maxRequestBodySize = 1000
        let server = try startTestServer(configuration)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/body"
        let small = try await curl(
            ["-w", "%{http_code}", "-o", "/dev/null", "--data-binary", "@-", url], input: Data(count: 1000))
        #expect(small.text == "200")
        let declared = try await curl(
            ["-w", "%{http_code}", "-o", "/dev/null", "--data-binary", "@-", url], input: Data(count: 2000))
        #expect(declared.text == "413")
        let chunked = try await curl(
            ["-w", "%{http_code}", "-o", "/dev/null", "-H", "Transfer-Encoding: chunked", "--data-binary", "@-", url],
            input: Data(count: 5000))
        #expect(chunked.text == "413")
        let chunkedSmall = try await curl(
            ["-H", "Transfer-Encoding: chunked", "--data-binary", "@-", url], input: Data(repeating: 7, count: 900))
        #expect(chunkedSmall.stdout == Data(repeating: 7, count: 900))
    }

    @Test func longQueryAndLongResponseHeaderFit() async throws {
        let server = try startTestServer()
        defer { server.stop() }
        let value = String(repeating: "number%3DINC0001234%5EOR", count: 1000)  // 24 000 characters
        let result = try await curl(["http://127.0.0.1:\(server.port)/echo?sysparm_query=\(value)"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let echo = try Echo(result.stdout)
        #expect(echo.query.first?[1] == String(repeating: "number=INC0001234^OR", count: 1000))

        let header = try await curl(["-D", "-", "-o", "/dev/null", "http://127.0.0.1:\(server.port)/header?size=60000"])
        #expect(header.text.hasPrefix("HTTP/1.1 200"), "\(header.text.prefix(200)) \(header.stderr)")
        #expect(header.text.contains("Link: " + String(repeating: "l", count: 60000)))
    }
}

@Suite(.timeLimit(.minutes(5))) struct HTTPServerLifecycleTests {
    @Test func stopWhileIdleThenRestart() async throws {
        let server = try startTestServer()
        let first = server.port
        #expect(first > 0)
        #expect(try await curl(["http://127.0.0.1:\(first)/echo"]).exitCode == 0)
        server.stop()
        server.stop()  // idempotent
        #expect(server.port == 0)
        #expect(!server.isServing)
        #expect(try await curl(["http://127.0.0.1:\(first)/echo"]).exitCode != 0, "still answering after stop()")
        #expect(server.liveConnectionCount == 0)

        let second = try server.start()
        defer { server.stop() }
        #expect(second == server.port)
        let echo = try Echo(try await curl(["http://127.0.0.1:\(second)/echo?again=1"]).stdout)
        #expect(echo.query == [["again", "1"]])
    }

    @Test func stopWaitsForARunningHandler() async throws {
        let handler = TestHandler()
        let server = try startTestServer(handler: handler)
        let port = server.port
        // curl runs on a thread of its own (Subprocess), so the cooperative pool stays free.
        let client = Task { try await curl(["http://127.0.0.1:\(port)/slow?ms=2000"]) }
        // Watching for the handler and stopping the server happen on one thread of their own: a busy
        // cooperative pool could otherwise resume the watcher only after the handler had finished. That
        // the handler is no longer running when stop() returns is the proof that stop() waited for it.
        let (reached, runningAfterStop) = try await offCooperativePool { () -> (Bool, Int) in
            for _ in 0..<60_000 where handler.runningNow == 0 { usleep(1_000) }
            let reached = handler.runningNow == 1
            server.stop()
            return (reached, handler.runningNow)
        }
        let answer = await client.result
        try #require(reached, "the slow request never reached the handler; curl: \(answer)")
        #expect(runningAfterStop == 0, "stop() returned while a handler was still running")
        #expect(server.liveConnectionCount == 0)
    }

    @Test func twoServersOnDifferentPortsAndPortInUse() async throws {
        let one = try startTestServer()
        defer { one.stop() }
        let two = try startTestServer()
        defer { two.stop() }
        #expect(one.port != two.port)
        #expect(throws: HTTPServerError.self) { try one.start() }

        let clash = HTTPServer(configuration: .init(port: one.port), handler: TestHandler(), log: nil)
        do {
            try clash.start()
            Issue.record("binding a port in use succeeded")
            clash.stop()
        } catch let error as HTTPServerError {
            #expect(error.code == .startFailed)
            #expect(error.description.contains("\(one.port)"), "\(error)")
            #expect(error.description.contains("in use"), "\(error)")
        }
    }

    @Test(arguments: ["example.com", "256.1.1.1", "", "127.0.0.1:80"])
    func hostNamesAreRefused(host: String) async throws {
        let server = HTTPServer(configuration: .init(host: host), handler: TestHandler(), log: nil)
        #expect {
            try server.start()
        } throws: { error in
            (error as? HTTPServerError)?.code == .invalidConfiguration
        }
    }

    @Test func invalidConfigurationsAreRefused() async throws {
        let cases: [HTTPServer.Configuration] = [
            .init(port: 70000), .init(threadPoolSize: 0), .init(tlsCertificatePEM: "-----BEGIN CERTIFICATE-----"),
            .init(maxRequestBodySize: -1),
        ]
        for configuration in cases {
            #expect(throws: HTTPServerError.self) { try configuration.validate() }
        }
    }

    @Test(arguments: ["::1", "localhost"])
    func listensOnLoopbackNames(host: String) async throws {
        let server = try startTestServer(.init(host: host))
        defer { server.stop() }
        let address = host == "::1" ? "::1" : "127.0.0.1"
        let bytes = try await rawExchange(
            port: server.port, request: "GET /echo?v=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", host: address)
        let (head, rest) = splitResponse(bytes)
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(try Echo(Data(rest)).remote == address)
    }

    @Test func threadPerConnectionModeServes() async throws {
        let handler = TestHandler()
        let server = try startTestServer(.init(threadPerConnection: true), handler: handler)
        defer { server.stop() }
        let session = makeSession(connections: 20)
        let port = server.port
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let url = URL(string: "http://127.0.0.1:\(port)/slow?ms=50&i=\(index)")!
                    let (data, _) = try await session.data(from: url)
                    #expect(data == Data("slow".utf8))
                }
            }
            try await group.waitForAll()
        }
        #expect(handler.maxConcurrent > 1)
    }

    @Test func connectionStatesAreReleased() async throws {
        // A short idle timeout: libmicrohttpd closes an aborted connection when it sees the peer go, and at
        // the latest when the connection has been idle this long, so its state must be released by then.
        let server = try startTestServer(.init(connectionTimeout: .seconds(2)))
        // A request line followed by a disconnect, a malformed request and a normal one.
        _ = try? await rawExchange(port: server.port, request: "GET /echo?x=1 HTTP/1.1\r\nHost: x\r\n", timeout: 0.2)
        _ = try? await rawExchange(port: server.port, request: "GARBAGE\r\n\r\n", timeout: 1)
        _ = try await rawExchange(
            port: server.port, request: "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        // Closing happens on libmicrohttpd's threads, which a loaded machine delays (once > 10 s); a leak
        // never reaches 0, so wait long (up to 60 s of polling) rather than assume a speed.
        for _ in 0..<6000 where server.liveConnectionCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(server.liveConnectionCount == 0)
        server.stop()
        #expect(server.liveConnectionCount == 0)
    }
}

@Suite(.timeLimit(.minutes(5))) struct HTTPServerTLSTests {
    @Test func servesHTTPSWithASelfSignedCertificate() async throws {
        try await withScratchDirectory { (directory: URL) in
            let certificate = directory.appendingPathComponent("cert.pem").path
            let key = directory.appendingPathComponent("key.pem").path
            let openssl = try await Subprocess.run(
                Subprocess.tool("openssl"),
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "1",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", certificate,
                ])
            try #require(openssl.status == 0, "openssl: \(openssl.output)")

            var configuration = HTTPServer.Configuration()
            try configuration.loadTLS(certificateFile: certificate, keyFile: key)
            let server = try startTestServer(configuration)
            defer { server.stop() }
            let url = "https://localhost:\(server.port)/api/now/table/incident?sysparm_limit=1"
            let verified = try await curl(["--cacert", certificate, url])
            #expect(verified.exitCode == 0, "\(verified.stderr)")
            let echo = try Echo(verified.stdout)
            #expect(echo.secure)
            #expect(echo.query == [["sysparm_limit", "1"]])

            let big = try await curl(["-k", "https://127.0.0.1:\(server.port)/bytes?n=2000000"])
            #expect(big.stdout == Data(pattern(2_000_000)))

            let plain = try await curl(["http://127.0.0.1:\(server.port)/echo"])
            #expect(
                plain.exitCode != 0 || !plain.text.contains("\"secure\""), "plain HTTP was answered by the TLS server")
        }
    }

    @Test func unreadableCertificateIsAClearError() async throws {
        var configuration = HTTPServer.Configuration()
        #expect {
            try configuration.loadTLS(certificateFile: "/nonexistent/cert.pem", keyFile: "/nonexistent/key.pem")
        } throws: { error in
            guard let error = error as? HTTPServerError else { return false }
            return error.code == .certificateUnreadable && error.message.contains("/nonexistent/cert.pem")
        }
        configuration.tlsCertificatePEM = "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n"
        configuration.tlsKeyPEM = "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n"
        let server = HTTPServer(configuration: configuration, handler: TestHandler(), log: nil)
        #expect {
            try server.start()
        } throws: { error in
            guard let error = error as? HTTPServerError else { return false }
            return error.code == .startFailed && error.message.contains("certificate")
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct HTTPServerLogTests {
    @Test func oneLinePerRequestWithoutSecrets() async throws {
        let capture = LogCapture()
        let server = try startTestServer(log: capture.log)
        defer { server.stop() }
        let result = try await curl([
            "-H", "Authorization: Basic YWRtaW46c2VjcmV0", "-H", "Content-Type: application/x-www-form-urlencoded",
            "--data-binary", "password=hunter2",
            "http://127.0.0.1:\(server.port)/api/now/table/incident?sysparm_limit=1",
        ])
        #expect(result.exitCode == 0)
        let line = try #require(try await capture.waitForLine(containing: "/api/now/table/incident"))
        let pattern =
            #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ 127\.0\.0\.1 POST /api/now/table/incident\?sysparm_limit=1 200 \d+B \d+\.\dms\n$/#
        #expect(line.wholeMatch(of: pattern) != nil, "\(line)")
        #expect(!line.contains("YWRtaW46c2VjcmV0"))
        #expect(!line.contains("hunter2"))

        _ = try await curl(["-I", "http://127.0.0.1:\(server.port)/bytes?n=500&password=hunter2&user=x"])
        let head = try #require(try await capture.waitForLine(containing: "HEAD /bytes"))
        #expect(head.contains("HEAD /bytes?n=500&password=REDACTED&user=x 200 0B "), "\(head)")
    }

    @Test func formatsEntries() {
        let entry = RequestLog.Entry(
            date: Date(timeIntervalSince1970: 1_795_953_600), remoteAddress: "127.0.0.1", method: "GET",
            target: "/api/now/table/incident?sysparm_limit=1&client_secret=abc\n", status: 200, bytes: 1234,
            duration: 0.00321)
        #expect(
            RequestLog.format(entry)
                == "2026-11-29T12:00:00Z 127.0.0.1 GET /api/now/table/incident?sysparm_limit=1&client_secret=REDACTED 200 1234B 3.2ms"
        )
        var aborted = entry
        aborted.target = "/x\u{1B}[31m"
        aborted.status = 0
        aborted.completed = false
        #expect(RequestLog.format(aborted).hasSuffix(" GET /x\\x1B[31m - 1234B 3.2ms incomplete"))
    }
}

@Suite(.timeLimit(.minutes(5))) struct HTTPServerSupportTests {
    @Test(arguments: [
        ("", [(String, String)]()),
        ("a=1&b=2", [("a", "1"), ("b", "2")]),
        ("a=1&&a=2&", [("a", "1"), ("a", "2")]),
        ("q=a+b%2Bc", [("q", "a b+c")]),
        ("k%20ey=v%3Dw=x", [("k ey", "v=w=x")]),
        ("bad=%zz%4&pct=100%", [("bad", "%zz%4"), ("pct", "100%")]),
        ("utf=%C3%A9t%C3%A9&raw=été", [("utf", "été"), ("raw", "été")]),
        ("invalid=%FF", [("invalid", "\u{FFFD}")]),
        ("flag", [("flag", "")]),
        ("=v", [("", "v")]),
    ])
    func decodesQueries(raw: String, expected: [(String, String)]) {
        let decoded = HTTPRequest.decodeQuery(raw)
        #expect(decoded.map(\.name) == expected.map(\.0))
        #expect(decoded.map(\.value) == expected.map(\.1))
    }

    @Test(arguments: [
        ("a+b%20c", false, "a+b c"), ("a+b%20c", true, "a b c"), ("%zz%4%", false, "%zz%4%"), ("%C3%A9", false, "é"),
        ("%FF+", true, "\u{FFFD} "),
    ])
    func percentDecodesWithPlusAsSpaceOnlyWhenAsked(text: String, plusAsSpace: Bool, expected: String) {
        #expect(HTTPRequest.percentDecoded(text, plusAsSpace: plusAsSpace) == expected)
        if !plusAsSpace { #expect(HTTPRequest.percentDecoded(text) == expected) }
        #expect(HTTPRequest.percentDecoded(text[...], plusAsSpace: plusAsSpace) == expected)
    }

    @Test func portFileIsWrittenAndReplaced() async throws {
        try await withScratchDirectory { (directory: URL) in
            let path = directory.appendingPathComponent("port").path
            try writePortFile(path, port: 8443)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "8443\n")
            try writePortFile(path, port: 12345)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "12345\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["port"])
            #expect {
                try writePortFile(directory.appendingPathComponent("missing/port").path, port: 1)
            } throws: { error in
                (error as? HTTPServerError)?.code == .portFileUnwritable
            }
        }
    }

    @Test func shutdownSignalRunsTheHandlerOnce() async throws {
        let count = LogCapture()
        let signals = ShutdownSignals(signals: [SIGUSR2]) { number in
            count.log.note("signal \(number)")
        }
        defer { signals.cancel() }
        #expect(signals.wait(timeout: .milliseconds(50)) == nil)
        // The source is armed asynchronously; keep raising until the handler has seen one.
        var received: Int32?
        for _ in 0..<50 where received == nil {
            kill(getpid(), SIGUSR2)
            received = signals.wait(timeout: .milliseconds(100))
        }
        #expect(received == SIGUSR2)
        kill(getpid(), SIGUSR2)
        try await Task.sleep(for: .milliseconds(100))
        #expect(count.lines == ["nowsim: signal \(SIGUSR2)\n"])
        #expect(signals.wait() == SIGUSR2)
    }
}
