"""The two ways to reach the daemon: its Unix socket (NDJSON) and its
WebSocket (one JSON object per text message). Both give whole lines."""

import asyncio
import json
from typing import Any, Dict, Optional

#: The daemon refuses a command line over 64 KiB; its own lines can be
#: longer (a hello with many transitions), so read with a generous limit.
READ_LIMIT = 16 * 1024 * 1024


class Transport:
    """One connection. ``receive`` gives a line's bytes (no newline) or None
    once the connection is over."""

    #: Why the connection ended, when known (e.g. a WebSocket close code).
    close_code: Optional[int] = None
    close_reason: str = ""

    async def receive(self) -> Optional[bytes]:
        raise NotImplementedError

    async def send(self, command: Dict[str, Any]) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


def _encode_command(command: Dict[str, Any]) -> str:
    return json.dumps(command, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class UnixTransport(Transport):
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self._reader, self._writer = reader, writer

    @classmethod
    async def open(cls, path: str) -> "UnixTransport":
        reader, writer = await asyncio.open_unix_connection(path, limit=READ_LIMIT)
        return cls(reader, writer)

    async def receive(self) -> Optional[bytes]:
        try:
            line = await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError:
            return None        # EOF; a last line without its newline was cut off mid-write
        except asyncio.LimitOverrunError:
            return None
        except (ConnectionError, OSError):
            return None
        return line[:-1]

    async def send(self, command: Dict[str, Any]) -> None:
        self._writer.write(_encode_command(command).encode("utf-8") + b"\n")
        await self._writer.drain()

    async def close(self) -> None:
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except (ConnectionError, OSError):
            pass


class WebSocketTransport(Transport):
    def __init__(self, connection: Any, closed_exception: type):
        self._ws = connection
        self._closed = closed_exception

    @classmethod
    async def open(cls, url: str, origin: Optional[str] = None, open_timeout: float = 10) -> "WebSocketTransport":
        try:
            import websockets
            from websockets.exceptions import ConnectionClosed
        except ImportError as error:   # pragma: no cover - depends on the installation
            raise ImportError("a ws:// URL needs the websockets package: "
                              "pip install 'transitiond-client[websocket]'") from error
        kwargs: Dict[str, Any] = {"max_size": READ_LIMIT, "open_timeout": open_timeout}
        if origin is not None:
            kwargs["origin"] = origin
        try:
            from websockets.asyncio.client import connect as ws_connect   # websockets >= 13
        except ImportError:   # pragma: no cover - older websockets
            ws_connect = websockets.connect
        connection = await ws_connect(url, **kwargs)
        return cls(connection, ConnectionClosed)

    def _note_close(self) -> None:
        rcvd = getattr(self._ws, "close_rcvd", None)
        if rcvd is not None:
            self.close_code, self.close_reason = rcvd.code, rcvd.reason
        else:
            self.close_code = getattr(self._ws, "close_code", None)
            self.close_reason = getattr(self._ws, "close_reason", "") or ""

    async def receive(self) -> Optional[bytes]:
        while True:
            try:
                message = await self._ws.recv()
            except self._closed:
                self._note_close()
                return None
            except (ConnectionError, OSError):
                return None
            if isinstance(message, str):
                return message.encode("utf-8")
            # The daemon sends text only; a binary message is not a line.

    async def send(self, command: Dict[str, Any]) -> None:
        try:
            await self._ws.send(_encode_command(command))
        except self._closed as error:
            raise ConnectionResetError("the WebSocket is closed") from error

    async def close(self) -> None:
        try:
            await self._ws.close()
        except (ConnectionError, OSError):
            pass
