"""A raw RESP2/RESP3 client for the server tests (Client), and a free
local port to start a server on (free_port).
"""

import socket
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """A raw RESP2/RESP3 client: sends multibulk requests, reads whole
    replies as (type byte, payload)."""

    def __init__(self, port, connect_timeout=20):
        """Connects, trying again for up to `connect_timeout` seconds."""
        deadline = time.time() + connect_timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=min(10, connect_timeout))
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.buf = b""

    @staticmethod
    def encode(args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def command(self, *args):
        self.sock.sendall(self.encode(args))
        return self.reply()

    def pipeline(self, commands):
        """Sends every command before reading any reply; the replies."""
        self.sock.sendall(b"".join(self.encode(c) for c in commands))
        return [self.reply() for _ in commands]

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _bytes(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b"-", b":", b",", b"#", b"("):
            return (kind, rest)
        if kind == b"_":
            return (kind, None)
        if kind in (b"$", b"="):
            n = int(rest)
            return (kind, None if n < 0 else self._bytes(n))
        if kind in (b"*", b"~", b">"):
            n = int(rest)
            return (kind, None if n < 0 else [self.reply() for _ in range(n)])
        if kind == b"%":
            return (kind, [self.reply() for _ in range(2 * int(rest))])
        raise ValueError(f"bad reply line {line!r}")
