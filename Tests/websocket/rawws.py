#!/usr/bin/env python3
"""A WebSocket client in the standard library only, byte by byte (RFC 6455):
for what a full client library will not do -- a handshake checked by hand,
a client that never reads, a client run as another user by a plain
``python3`` -- in the conformance tests.

As a command (what a test runs as another user):

    python3 rawws.py HOST:PORT COMMAND_JSON...

connects, reads the hello, sends each command as one text message and
prints the hello and each reply (one JSON object per line), then closes.
"""

import base64
import hashlib
import json
import os
import socket
import struct
import sys
import time
from typing import Dict, Optional, Tuple

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA


class HandshakeRefused(Exception):
    def __init__(self, status: int, headers: Dict[str, str], body: bytes):
        super().__init__(f"HTTP {status}")
        self.status, self.headers, self.body = status, headers, body


def masked_frame(opcode: int, payload: bytes, first_byte: Optional[int] = None) -> bytes:
    """One final, masked client frame (``first_byte`` overrides FIN/RSV/opcode)."""
    header = bytes([first_byte if first_byte is not None else 0x80 | opcode])
    n = len(payload)
    if n < 126:
        header += bytes([0x80 | n])
    elif n < 65536:
        header += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        header += bytes([0x80 | 127]) + struct.pack("!Q", n)
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return header + mask + masked


class RawWebSocket:
    def __init__(self, address: str, path: str = "/stream", origin: Optional[str] = None,
                 receive_buffer: Optional[int] = None, timeout: float = 10, host_header: Optional[str] = None):
        host, port = address.rsplit(":", 1)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:      # before connect: it sets the TCP window
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(timeout)
        self.sock.connect((host, int(port)))
        self.key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: {host_header or address}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {self.key}", "Sec-WebSocket-Version: 13"]
        if origin is not None:
            lines.append(f"Origin: {origin}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError(f"the server closed during the handshake: {self.buffer!r}")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        self.status = int(status_line.split()[1])
        self.headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()
        if self.status != 101:
            raise HandshakeRefused(self.status, self.headers, self.buffer)
        expected = base64.b64encode(hashlib.sha1((self.key + GUID).encode()).digest()).decode()
        if self.headers.get("sec-websocket-accept") != expected:
            raise ConnectionError(f"bad Sec-WebSocket-Accept: {self.headers}")

    def send_frame(self, opcode: int, payload: bytes) -> None:
        self.sock.sendall(masked_frame(opcode, payload))

    def send_text(self, text: str) -> None:
        self.send_frame(TEXT, text.encode())

    def _read(self, n: int, deadline: float) -> bytes:
        while len(self.buffer) < n:
            self.sock.settimeout(max(0.001, deadline - time.monotonic()))
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the connection ended")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def receive_frame(self, timeout: float = 10) -> Tuple[int, bytes]:
        """One frame (opcode, payload); answers pings on the way."""
        deadline = time.monotonic() + timeout
        while True:
            b0, b1 = self._read(2, deadline)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2, deadline))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8, deadline))[0]
            mask = self._read(4, deadline) if b1 & 0x80 else None
            payload = self._read(n, deadline)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            opcode = b0 & 0x0F
            if opcode == PING:
                self.send_frame(PONG, payload)
                continue
            return opcode, payload

    def receive_text(self, timeout: float = 10) -> str:
        opcode, payload = self.receive_frame(timeout)
        if opcode == CLOSE:
            code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
            raise EOFError(f"closed with {code}")
        assert opcode == TEXT, f"opcode {opcode}"
        return payload.decode()

    def close(self) -> None:
        try:
            self.send_frame(CLOSE, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()


def main() -> None:
    address, *commands = sys.argv[1:]
    ws = RawWebSocket(address)
    print(ws.receive_text(), flush=True)
    for command in commands:
        ws.send_text(command)
        while True:
            message = ws.receive_text()
            print(message, flush=True)
            if json.loads(message).get("type") in ("pong", "ok", "state", "error"):
                break
    ws.close()


if __name__ == "__main__":
    main()
