import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// The `.env` file beside a pipeline, relative paths resolved against the pipeline file, and the
/// warnings for secret files others can read.
@Suite(.timeLimit(.minutes(2))) struct ConfigDotEnvTests {
    static func parse(_ text: String) throws(ConfigError) -> [String: String] {
        try DotEnvFile.parse(Array(text.utf8), path: "dir/.env").values
    }

    @Test func linesInTheFormsShellsAndComposeShareAreRead() throws {
        let values = try Self.parse(
            """
            # a comment, then a blank line

            PLAIN=value
            export EXPORTED=yes
              INDENTED = spaced around the equals sign   
            HASH_INSIDE=a#b
            COMMENTED=kept # dropped
            SINGLE='s3cr#t with "quotes" and \\n'
            DOUBLE="line one\\nline two\\t\\"q\\" \\\\ \\$HOME \\x"
            DOUBLE_COMMENT="v" # after the quote
            EMPTY=
            EMPTY_QUOTED=''
            WINDOWS=crlf\r
            NOT_EXPANDED=${HOME}
            exporter=lowercase name starting with export
            """)
        #expect(
            values == [
                "PLAIN": "value", "EXPORTED": "yes", "INDENTED": "spaced around the equals sign",
                "HASH_INSIDE": "a#b", "COMMENTED": "kept", "SINGLE": "s3cr#t with \"quotes\" and \\n",
                "DOUBLE": "line one\nline two\t\"q\" \\ $HOME \\x", "DOUBLE_COMMENT": "v", "EMPTY": "",
                "EMPTY_QUOTED": "", "WINDOWS": "crlf", "NOT_EXPANDED": "${HOME}",
                "exporter": "lowercase name starting with export",
            ])
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var text: String
        var expected: String
        var testDescription: String { expected }
    }

    /// Each malformed line is an error at its line and column; no message quotes a value.
    @Test(arguments: [
        Bad(
            text: "OK=1\n1ST=topsecret",
            expected: "dir/.env:2:1: error: expected NAME=VALUE, where NAME is a letter or _ then letters, digits, _"),
        Bad(
            text: "SN_PASSWORD topsecret",
            expected: "dir/.env:1:13: error: expected '=' after SN_PASSWORD (a .env line is NAME=VALUE)"),
        Bad(
            text: "A=1\n\nSN_PASSWORD=\"topsecret",
            expected: "dir/.env:3:13: error: the value of SN_PASSWORD opens a quote that this line does not close "
                + "(values do not span lines; write \\n inside double quotes)"),
        Bad(
            text: "SN_PASSWORD='topsecret' trailing",
            expected: "dir/.env:1:25: error: unexpected text after the quoted value of SN_PASSWORD; put a comment "
                + "after ' #'"),
        Bad(
            text: "SN_PASSWORD=topsecret\nexport SN_PASSWORD=othersecret",
            expected: "dir/.env:2:1: error: SN_PASSWORD is set twice in the .env file (first on line 1); keep one"),
        Bad(
            text: "export =topsecret",
            expected: "dir/.env:1:8: error: expected NAME=VALUE, where NAME is a letter or _ then letters, digits, _"),
    ])
    func malformedLinesAreErrorsAtTheirPosition(_ bad: Bad) {
        let error = #expect(throws: ConfigError.self) { try Self.parse(bad.text) }
        #expect(error?.description == bad.expected)
        #expect(
            error?.description.contains("topsecret") == false && error?.description.contains("othersecret") == false)
        #expect(error?.exitCode == 78)
    }

    @Test func invalidUTF8IsAnError() {
        let error = #expect(throws: ConfigError.self) {
            try DotEnvFile.parse([0x41, 0x3D, 0xFF, 0xFE], path: "dir/.env")
        }
        #expect(error?.description == "dir/.env: error: the .env file is not valid UTF-8")
    }

    /// A temporary directory with `p.yaml` (and the files given), removed afterwards.
    static func withPipeline(
        _ pipeline: String, files: [String: (text: String, mode: Int)] = [:],
        _ body: (URL) throws -> Void
    ) throws {
        return try withScratchDirectory { (directory: URL) in
            try pipeline.write(to: directory.appendingPathComponent("p.yaml"), atomically: true, encoding: .utf8)
            for (name, file) in files {
                let path = directory.appendingPathComponent(name).path
                #expect(
                    FileManager.default.createFile(
                        atPath: path, contents: Data(file.text.utf8), attributes: [.posixPermissions: file.mode]))
            }
            try body(directory)
        }
    }

    static let pipeline = PipelineYAML(
        auth: PipelineYAML.placeholderAuthBlock, outputDirectory: "${OUT:-exports}"
    ).text

    /// `--var` beats the environment, which beats `.env`; paths in the file are relative to its directory.
    @Test func dotEnvFillsWhatTheEnvironmentAndVariablesLeaveOpen() throws {
        let dotEnv = "SN_INSTANCE=https://from-dotenv.example.com\nSN_USER=dotenv-user\nSN_PASSWORD='dotenv pw'\n"
        try Self.withPipeline(Self.pipeline, files: [".env": (dotEnv, 0o600)]) { directory in
            let located = try PipelineLoader.loadLocated(
                path: directory.appendingPathComponent("p.yaml").path,
                environment: ["SN_USER": "env-user", "SN_INSTANCE": "https://from-env.example.com"],
                variables: ["SN_INSTANCE": "https://from-var.example.com"])
            let configuration = located.configuration
            #expect(configuration.source.instance.absoluteString == "https://from-var.example.com")
            #expect(configuration.source.auth == .basic(user: "env-user", password: Secret("dotenv pw")))
            #expect(configuration.outputDirectory == directory.path + "/exports")
            #expect(located.warnings.isEmpty, "\(located.warnings)")
        }
    }

    @Test func aDotEnvOthersCanReadIsUsedWithAWarning() throws {
        let dotEnv = "SN_INSTANCE=https://acme.example.com\nSN_USER=u\nSN_PASSWORD=topsecret\n"
        try Self.withPipeline(Self.pipeline, files: [".env": (dotEnv, 0o644)]) { directory in
            let located = try PipelineLoader.loadLocated(
                path: directory.appendingPathComponent("p.yaml").path, environment: [:])
            let path = directory.appendingPathComponent(".env").path
            #expect(
                located.warnings.map(\.description) == [
                    "\(path): warning: the .env file can be read by its group or others (mode 0644); make it "
                        + "private: chmod 600 '\(path)'"
                ])
            #expect(located.configuration.source.auth == .basic(user: "u", password: Secret("topsecret")))
        }
    }

    @Test func aDotEnvThatCannotBeReadIsAnErrorNotIgnored() throws {
        try Self.withPipeline(Self.pipeline) { directory in
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(".env"), withIntermediateDirectories: false)
            let path = directory.appendingPathComponent("p.yaml").path
            let error = #expect(throws: ConfigError.self) {
                try PipelineLoader.load(path: path, environment: ["SN_INSTANCE": "https://a.example.com"])
            }
            #expect(
                error?.description
                    == "\(directory.path)/.env: error: cannot read the .env file beside the pipeline: it is a directory"
            )
            #expect(error?.exitCode == 78)
        }
    }

    /// A relative `password_file` is read from the pipeline's directory, and one others can read gets a
    /// warning at its position; `output_dir` stays relative when the pipeline was named relatively.
    @Test func secretFilesAreResolvedAgainstThePipelineAndCheckedForPrivacy() throws {
        let pipeline = """
            version: 1
            source:
              instance: https://acme.example.com
              auth:
                basic: { user: etl, password_file: secrets/sn }
            output_dir: ../out/x
            tables:
              - table: incident
            outputs:
              - csv: { path: "{table}.csv" }
            """
        try Self.withPipeline(pipeline) { directory in
            let secrets = directory.appendingPathComponent("secrets")
            try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: false)
            let secret = secrets.appendingPathComponent("sn").path
            #expect(
                FileManager.default.createFile(
                    atPath: secret, contents: Data("from-file\n".utf8), attributes: [.posixPermissions: 0o640]))
            let located = try PipelineLoader.loadLocated(
                path: directory.appendingPathComponent("p.yaml").path, environment: [:])
            #expect(located.configuration.source.auth == .basic(user: "etl", password: Secret("from-file")))
            #expect(located.configuration.outputDirectory == directory.path + "/../out/x")
            let file = directory.appendingPathComponent("p.yaml").path
            #expect(
                located.warnings.map(\.description) == [
                    "\(file):5:40: warning: the secret file '\(secret)' named by source.auth.basic.password_file can "
                        + "be read by its group or others (mode 0640); make it private: chmod 600 '\(secret)'"
                ])

            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
            #expect(
                try PipelineLoader.loadLocated(path: directory.appendingPathComponent("p.yaml").path, environment: [:])
                    .warnings.isEmpty)
        }
    }

    @Test func relativeDirectoriesStayRelativeAndAbsoluteOnesAreKept() {
        #expect(PipelineLoadContext.resolve("out", against: ".") == "out")
        #expect(PipelineLoadContext.resolve("../out/demo", against: "pipelines") == "pipelines/../out/demo")
        #expect(PipelineLoadContext.resolve("/exports", against: "pipelines") == "/exports")
        #expect(PipelineLoadContext.resolve("out", against: "/") == "/out")
        #expect(PipelineLoadContext(file: "p.yaml").directory == ".")
        #expect(PipelineLoadContext(file: "my-pipelines/p.yaml").directory == "my-pipelines")
    }
}
