#!/usr/bin/env python3
"""A TCP proxy on loopback that behaves like a slow WAN link, for make bench's bandwidth-limited case.

  shaping_proxy.py TARGET_PORT PORT_FILE [--rate-mbit 50] [--delay-ms 20] [--target-host 127.0.0.1]

Listens on 127.0.0.1 (a free port, written to PORT_FILE once listening) and forwards every connection
to TARGET_HOST:TARGET_PORT, bytes untouched (TLS passes through). Each direction is one link shared by
all connections, as a real line is: a chunk occupies it for size / rate (the serialisation time), in
arrival order across connections, then arrives delay later (the propagation delay; 20 ms each way is
an RTT of 40 ms). Chunks of one connection keep their order. What one side has not yet been able to
put on the link holds its reader back (a short queue), so TCP's flow control still reaches the sender.

Runs until SIGTERM or SIGINT. Standard library only.
"""
import argparse
import asyncio
import os
import signal
import time

CHUNK = 16 * 1024
QUEUED_CHUNKS = 8


class Link:
    """One direction of the line: when it is free again, and how long a byte takes."""

    def __init__(self, rate_bits_per_second, delay_seconds):
        self.seconds_per_byte = 8.0 / rate_bits_per_second
        self.delay = delay_seconds
        self.free_at = 0.0

    def occupy(self, size):
        """Reserves the link for `size` bytes after what is already on it; returns when they leave it."""
        start = max(time.monotonic(), self.free_at)
        self.free_at = start + size * self.seconds_per_byte
        return self.free_at


async def sleep_until(moment):
    wait = moment - time.monotonic()
    if wait > 0:
        await asyncio.sleep(wait)


async def pump(reader, writer, link):
    """Copies reader to writer through `link`: reading, serialising, delaying and writing run as three
    stages, so that a chunk in flight (its delay) never holds back the next one's serialisation."""
    to_send = asyncio.Queue(QUEUED_CHUNKS)
    in_flight = asyncio.Queue()

    async def read():
        try:
            while data := await reader.read(CHUNK):
                await to_send.put(data)
        except (ConnectionError, OSError):
            pass
        await to_send.put(b"")

    async def serialise():
        while True:
            data = await to_send.get()
            if not data:
                await in_flight.put((time.monotonic() + link.delay, b""))
                return
            sent = link.occupy(len(data))
            await sleep_until(sent)
            await in_flight.put((sent + link.delay, data))

    async def deliver():
        try:
            while True:
                arrives, data = await in_flight.get()
                await sleep_until(arrives)
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass

    tasks = [asyncio.create_task(step()) for step in (read, serialise, deliver)]
    try:
        await tasks[2]
    finally:
        for task in tasks:
            task.cancel()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target_port", type=int)
    parser.add_argument("port_file")
    parser.add_argument("--target-host", default="127.0.0.1")
    parser.add_argument("--rate-mbit", type=float, default=50.0)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    options = parser.parse_args()
    upstream = Link(options.rate_mbit * 1e6, options.delay_ms / 1000)
    downstream = Link(options.rate_mbit * 1e6, options.delay_ms / 1000)

    async def connection(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(options.target_host, options.target_port)
        except OSError:
            client_writer.close()
            return
        try:
            await asyncio.gather(pump(client_reader, server_writer, upstream),
                                 pump(server_reader, client_writer, downstream))
        finally:
            for writer in (client_writer, server_writer):
                writer.close()

    server = await asyncio.start_server(connection, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    with open(options.port_file + ".tmp", "w") as f:
        f.write(f"{port}\n")
    os.replace(options.port_file + ".tmp", options.port_file)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stopping.set)
    async with server:
        await stopping.wait()


if __name__ == "__main__":
    asyncio.run(main())
