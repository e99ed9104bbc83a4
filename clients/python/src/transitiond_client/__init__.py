"""An asyncio client for transitiond's event stream.

    import asyncio, transitiond_client

    async def main():
        client = await transitiond_client.connect()          # the Unix socket
        async for event in client:
            if event.type == "changed":
                print(event["transition"], event["progress"])

    asyncio.run(main())

``connect(url="ws://127.0.0.1:8765/stream")`` uses the daemon's WebSocket
instead (``pip install 'transitiond-client[websocket]'``). See README.md.
"""

from ._paths import SYSTEM_SOCKET, socket_path
from .clock import ClockOffset
from .client import Client, CommandError, ProtocolError, TransitiondError, Unavailable, connect
from .events import REPLY_TYPES, TRANSITION_EVENTS, Event, decode, encode, format_number
from .mirror import ANIMATING, IDLE, INTERACTING, Mirror, TransitionState

__version__ = "0.1.0"

__all__ = [
    "ANIMATING", "IDLE", "INTERACTING", "REPLY_TYPES", "SYSTEM_SOCKET", "TRANSITION_EVENTS",
    "Client", "ClockOffset", "CommandError", "Event", "Mirror", "ProtocolError", "TransitionState",
    "TransitiondError", "Unavailable", "connect", "decode", "encode", "format_number",
    "socket_path",
]
