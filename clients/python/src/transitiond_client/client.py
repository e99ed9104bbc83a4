"""The client: connect, read the stream, send commands, mirror the state."""

import asyncio
import itertools
import math
import time
from typing import Any, Awaitable, Callable, Dict, Iterable, List, Optional, Tuple, Union

from ._paths import socket_path
from .clock import ClockOffset
from .events import REPLY_TYPES, TRANSITION_EVENTS, Event, decode
from .mirror import Mirror, TransitionState
from .transport import Transport, UnixTransport, WebSocketTransport


class TransitiondError(Exception):
    """Base of this package's errors."""


class CommandError(TransitiondError):
    """The daemon answered a command with ``{"type":"error",…}``."""

    def __init__(self, reply: Event):
        self.reply = reply
        self.code: str = reply.get("code", "")
        self.message: str = reply.get("message", "")
        super().__init__(f"{self.code}: {self.message}")


class ProtocolError(TransitiondError):
    """The daemon's stream did not start with a ``hello``."""


class Unavailable(TransitiondError, ConnectionError):
    """No daemon could be reached (within ``retry_seconds`` when retrying)."""


class _End:
    """Queued after the last event of a client that will read no more."""

    def __init__(self, error: Optional[BaseException] = None):
        self.error = error


Opener = Callable[[], Awaitable[Transport]]

#: The most ``[seq, time]`` pairs one ``frames`` command may carry.
FRAMES_PER_COMMAND = 64
#: Seconds after which frame reports refresh the clock estimate.
CLOCK_REFRESH = 10.0

#: Reconnection backoff: the first wait, its growth and its ceiling (seconds).
BACKOFF_FIRST, BACKOFF_FACTOR, BACKOFF_MAX = 0.1, 2.0, 2.0


async def connect(path: Optional[str] = None, *, url: Optional[str] = None,
                  transitions: Optional[Iterable[str]] = None, reconnect: bool = False,
                  retry_seconds: float = 30.0, origin: Optional[str] = None,
                  timeout: float = 10.0,
                  on_disconnect: Optional[Callable[["Client"], None]] = None) -> "Client":
    """Connects to a daemon and returns a :class:`Client` once its ``hello``
    has arrived.

    ``path`` is the Unix socket (default: ``$TRANSITIOND_SOCKET``, else
    ``$XDG_RUNTIME_DIR/transitiond.sock``, else
    ``/run/transitiond/transitiond.sock``); ``url`` (``ws://host:port/stream``)
    uses the daemon's WebSocket instead (``pip install
    'transitiond-client[websocket]'``), with ``origin`` as its Origin header
    if given. ``transitions`` subscribes to only these transitions (again
    after every reconnection). With ``reconnect``, the first connection and
    every reconnection after a drop are retried with backoff (0.1 s doubling
    to 2 s) for up to ``retry_seconds``; without it one attempt is made and
    the iteration ends when the connection does. ``timeout`` bounds the wait
    for the ``hello`` and for each command's reply. ``on_disconnect(client)``
    is called when a connection drops (not on :meth:`Client.close`), after
    the synthetic ``cancelled`` events are queued and before reconnecting."""
    if path is not None and url is not None:
        raise ValueError("give a socket path or a WebSocket URL, not both")
    if url is not None:
        if not url.startswith(("ws://", "wss://")):
            raise ValueError(f"not a WebSocket URL: {url}")

        async def opener() -> Transport:
            return await WebSocketTransport.open(url, origin=origin, open_timeout=timeout)
        where = url
    else:
        resolved = socket_path(path)

        async def opener() -> Transport:
            return await UnixTransport.open(resolved)
        where = resolved
    client = Client(opener, where, reconnect=reconnect, retry_seconds=retry_seconds, timeout=timeout,
                    on_disconnect=on_disconnect)
    await client._start(list(transitions) if transitions is not None else None)
    return client


class Client:
    """A connection to the daemon (use :func:`connect`).

    ``async for event in client`` yields every message of the stream as an
    :class:`Event` (a dict; ``event.raw`` is the daemon's line): the
    ``hello``, the transition events, errors the daemon sends on its own,
    and replies to commands nobody awaits; replies awaited by
    :meth:`command` are not repeated there. When the connection drops it
    yields a synthetic ``cancelled`` for each transition in flight. The
    mirror (``client.transitions``) is kept up to date as lines arrive, even
    when nobody iterates."""

    def __init__(self, opener: Opener, where: str, *, reconnect: bool = False,
                 retry_seconds: float = 30.0, timeout: float = 10.0,
                 on_disconnect: Optional[Callable[["Client"], None]] = None):
        self.where = where
        self.on_disconnect = on_disconnect
        self.reconnect = reconnect
        self.retry_seconds = retry_seconds
        self.timeout = timeout
        self.mirror = Mirror()
        #: The last ``hello`` (a later one means the daemon's config changed,
        #: or the client reconnected).
        self.hello: Optional[Event] = None
        #: How many times the client reconnected after a drop.
        self.reconnections = 0
        #: The estimate of the daemon's clock (:meth:`sync_clock`): its
        #: ``offset`` (the daemon's time minus ``time.monotonic()``) and
        #: ``uncertainty`` (seconds). Started afresh at each reconnection.
        self.clock = ClockOffset()
        self._clock_refresh: Optional["asyncio.Task[None]"] = None
        self._opener = opener
        self._transport: Optional[Transport] = None
        self._queue: "asyncio.Queue[Union[Event, _End]]" = asyncio.Queue()
        self._pending: Dict[Any, "asyncio.Future[Event]"] = {}
        self._ids = itertools.count(1)
        self._filter: Optional[List[str]] = None
        self._task: Optional["asyncio.Task[None]"] = None
        self._closing = False
        self._ended = False

    # MARK: State

    @property
    def transitions(self) -> Dict[str, TransitionState]:
        """Each transition's mirrored state, by name."""
        return self.mirror.transitions

    @property
    def connected(self) -> bool:
        return self._transport is not None

    @property
    def close_code(self) -> Optional[int]:
        """The WebSocket close code of the last connection, when it had one."""
        return self._last_close_code

    _last_close_code: Optional[int] = None

    # MARK: Connection

    async def _start(self, transitions: Optional[List[str]]) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.retry_seconds if self.reconnect else 0)
        transport = await self._open_with_retry(deadline)
        self._attach(transport)
        if transitions:
            try:
                await self.subscribe(transitions)
            except ConnectionError:
                # The connection went before the reply (e.g. a short replay
                # ended): the filter stays, what arrived is read as usual,
                # and a reconnection subscribes again.
                self._filter = transitions
            except BaseException:
                await self.close()
                raise

    async def _open_with_retry(self, deadline: float) -> Transport:
        loop = asyncio.get_running_loop()
        delay = BACKOFF_FIRST
        while True:
            try:
                return await self._open_once()
            except Exception as error:
                if _is_refusal(error) or not _is_transient(error):
                    raise
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise Unavailable(f"cannot reach transitiond at {self.where}: {_describe(error)}") from error
                await asyncio.sleep(min(delay, remaining))
                delay = min(delay * BACKOFF_FACTOR, BACKOFF_MAX)

    async def _open_once(self) -> Transport:
        """A transport whose hello has been read and applied (and queued)."""
        transport = await asyncio.wait_for(self._opener(), self.timeout)
        try:
            raw = await asyncio.wait_for(transport.receive(), self.timeout)
            hello = decode(raw, time.monotonic()) if raw is not None else None
            if hello is None or hello.get("type") != "hello":
                what = "the connection closed" if raw is None else f"the first line is {raw[:80]!r}"
                raise ProtocolError(f"{self.where}: expected a hello, but {what}")
        except BaseException:
            await transport.close()
            raise
        self._deliver(hello)
        return transport

    def _attach(self, transport: Transport) -> None:
        self._transport = transport
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    async def _read_loop(self) -> None:
        try:
            await self._read_connections()
        except asyncio.CancelledError:
            self._finish()
            raise
        except Exception as error:      # a bug, or an error of the transport library
            self._transport = None
            self._fail_pending(ConnectionResetError(str(error)))
            self._finish(error)

    async def _read_connections(self) -> None:
        while True:
            transport = self._transport
            assert transport is not None
            while True:
                raw = await transport.receive()
                if raw is None:
                    break
                message = decode(raw, time.monotonic())
                if message is not None:
                    self._deliver(message)
            self._last_close_code = transport.close_code
            self._transport = None
            await transport.close()
            self._fail_pending(ConnectionResetError(f"the connection to {self.where} was lost"))
            if self._closing:
                self._finish()
                return
            for cancel in self.mirror.synthetic_cancellations():
                self._deliver(cancel)
            if self.on_disconnect is not None:
                self.on_disconnect(self)
            if not self.reconnect:
                self._finish()
                return
            loop = asyncio.get_running_loop()
            try:
                transport = await self._open_with_retry(loop.time() + self.retry_seconds)
            except Exception as error:
                self._finish(error if isinstance(error, Unavailable) else Unavailable(
                    f"cannot reach transitiond at {self.where}: {_describe(error)}"))
                return
            if self._closing:
                await transport.close()
                self._finish()
                return
            self._transport = transport
            self.reconnections += 1
            self.clock = ClockOffset()      # perhaps another daemon, on another machine
            if self._filter:
                self._resubscribe(self._filter)

    def _finish(self, error: Optional[BaseException] = None) -> None:
        if not self._ended:
            self._ended = True
            self._queue.put_nowait(_End(error))

    def _fail_pending(self, error: BaseException) -> None:
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(error)

    def _deliver(self, message: Event) -> None:
        """Routes one message: to the command awaiting it, or to the mirror
        and the queue."""
        kind = message.get("type")
        if kind in REPLY_TYPES and "id" in message:
            future = self._pending.pop(_key(message["id"]), None)
            if future is not None:
                if kind == "state":
                    self.mirror.apply(message)
                if not future.done():
                    future.set_result(message)
                return
        if kind in TRANSITION_EVENTS and self._filter and message.get("transition") not in self._filter:
            return      # sent before our subscription took effect
        if kind == "hello":
            self.hello = message
        self.mirror.apply(message)
        self._queue.put_nowait(message)

    async def close(self) -> None:
        """Closes the connection; the iteration ends after what was queued."""
        self._closing = True
        transport = self._transport
        if transport is not None:
            await transport.close()
        task = self._task
        if task is not None and transport is None and not task.done():
            task.cancel()           # between connections: stop retrying
        if task is not None and task is not asyncio.current_task():
            try:
                await asyncio.wait_for(asyncio.shield(task), 5)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                task.cancel()
        self._fail_pending(ConnectionResetError("the client was closed"))
        refresh = self._clock_refresh
        if refresh is not None and not refresh.done():
            refresh.cancel()
        self._finish()

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # MARK: Reading

    def __aiter__(self) -> "Client":
        return self

    async def __anext__(self) -> Event:
        item = await self._queue.get()
        if isinstance(item, _End):
            self._queue.put_nowait(item)     # every later read ends too
            if item.error is not None:
                raise item.error
            raise StopAsyncIteration
        return item

    async def receive(self, timeout: Optional[float] = None) -> Event:
        """The next message (StopAsyncIteration once the stream is over;
        ``asyncio.TimeoutError`` after ``timeout`` seconds)."""
        return await asyncio.wait_for(self.__anext__(), timeout)

    async def wait_for(self, predicate: Callable[[Event], bool], timeout: float) -> List[Event]:
        """Reads messages until one satisfies ``predicate``; returns all of
        them read, that one last. Raises ``asyncio.TimeoutError`` when none
        does within ``timeout`` seconds, ``EOFError`` if the stream ends."""
        seen: List[Event] = []

        async def run() -> List[Event]:
            async for message in self:
                seen.append(message)
                if predicate(message):
                    return seen
            raise EOFError(f"the stream ended before the awaited message (read {len(seen)})")
        return await asyncio.wait_for(run(), timeout)

    # MARK: Commands

    async def command(self, command: Dict[str, Any], timeout: Optional[float] = None) -> Event:
        """Sends a command and returns its reply (``pong``, ``ok``,
        ``state``). Gives it an ``id`` if it has none. Raises
        :class:`CommandError` for an ``error`` reply, ``ConnectionError`` if
        the connection is (or goes) away first, ``asyncio.TimeoutError``
        after ``timeout`` (default: the client's)."""
        transport = self._transport
        if transport is None:
            raise ConnectionResetError(f"not connected to {self.where}")
        command = dict(command)
        if "id" not in command:
            command["id"] = f"py-{next(self._ids)}"
        key = _key(command["id"])
        if key in self._pending:
            raise ValueError(f"a command with id {command['id']!r} is still waiting for its reply")
        future: "asyncio.Future[Event]" = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            await transport.send(command)
            reply = await asyncio.wait_for(asyncio.shield(future), self.timeout if timeout is None else timeout)
        finally:
            if self._pending.get(key) is future:
                del self._pending[key]
        if reply.get("type") == "error":
            raise CommandError(reply)
        return reply

    async def ping(self) -> Event:
        return await self.command({"cmd": "ping"})

    async def state(self) -> Event:
        """The daemon's snapshot (it also resets the mirror)."""
        return await self.command({"cmd": "state"})

    async def subscribe(self, transitions: Iterable[str] = ()) -> Event:
        """From now on receive only these transitions' events (none: all)."""
        names = list(transitions)
        previous = self._filter
        self._filter = names or None
        try:
            return await self.command({"cmd": "subscribe", "transitions": names})
        except BaseException:
            self._filter = previous
            raise

    def _resubscribe(self, names: List[str]) -> None:
        """After a reconnection: subscribe again without waiting (the read
        loop is the one that would see the reply). An error reply is queued."""
        transport = self._transport
        assert transport is not None
        key = f"py-{next(self._ids)}"
        future: "asyncio.Future[Event]" = asyncio.get_running_loop().create_future()
        self._pending[key] = future

        def done(f: "asyncio.Future[Event]") -> None:
            if not f.cancelled() and f.exception() is None and f.result().get("type") == "error":
                self._queue.put_nowait(f.result())
        future.add_done_callback(done)
        asyncio.get_running_loop().create_task(
            _send_quietly(transport, {"cmd": "subscribe", "transitions": names, "id": key}))

    async def run(self, transition: str, to: Union[str, float, None] = None, *,
                  index: Optional[int] = None) -> Event:
        """A non-interactive animated transition: ``to`` is ``"finish"``
        (the default) or ``"cancel"``; for a transition with snap points
        also a snap point's progress (``to=0.5``), or give the point's
        position in its ``snap_points`` instead (``index=2``). The daemon
        refuses a point the transition lacks, a number or an index for a
        transition without snap points, and both at once (``CommandError``,
        ``bad-field``)."""
        command: Dict[str, Any] = {"cmd": "run", "transition": transition}
        if to is not None or index is None:
            command["to"] = "finish" if to is None else to
        if index is not None:
            command["index"] = index
        return await self.command(command)

    async def drive(self, transition: str, progress: float) -> Event:
        """Drives a transition like a finger would (0…1)."""
        return await self.command({"cmd": "drive", "transition": transition, "progress": progress})

    async def release(self, transition: str, velocity: Optional[float] = None) -> Event:
        """Ends a driven transition (without ``velocity``, the daemon
        estimates it from the drive times)."""
        command: Dict[str, Any] = {"cmd": "release", "transition": transition}
        if velocity is not None:
            command["velocity"] = velocity
        return await self.command(command)

    async def cancel(self, transition: str) -> Event:
        return await self.command({"cmd": "cancel", "transition": transition})

    async def enable(self, transition: str, enabled: bool = True) -> Event:
        """Turns recognising a transition's gesture on or off (the UI says
        when "back" has somewhere to go)."""
        return await self.command({"cmd": "enable", "transition": transition, "enabled": enabled})

    async def exclude(self, rects: Iterable[Iterable[float]]) -> Event:
        """Sets this client's exclusion regions, replacing its earlier ones
        (``[]`` clears them): ``[x0, y0, x1, y1]`` rectangles in screen
        units (0…1) where no transition may start. The daemon refuses a
        list that would cover more of a screen edge than its
        ``max_edge_exclusion`` (``CommandError``, ``bad-field``)."""
        return await self.command({"cmd": "exclude", "rects": [list(r) for r in rects]})

    async def filter_regions(self, regions: Optional[Iterable[Dict[str, Any]]]) -> Event:
        """Filter mode: replaces the ``[[filter.region]]`` regions in force,
        each ``{"x": [x0, x1], "y": [y0, y1]}`` with optional
        ``"max_contacts"`` and ``"block"`` (``None``: the config's again).
        They stay until another call, or until this client goes. A bad
        list is refused (``CommandError``, ``bad-field``)."""
        return await self.command({"cmd": "filter_regions",
                                   "regions": None if regions is None else [dict(r) for r in regions]})

    async def reload(self) -> Event:
        """Has the daemon re-read its config file."""
        return await self.command({"cmd": "reload"})

    # MARK: Touch to frame

    async def clock_exchange(self) -> bool:
        """One ``clock`` exchange, added to :attr:`clock`; returns whether it
        became the estimate (it had the least round trip)."""
        sent = time.monotonic()
        reply = await self.command({"cmd": "clock"})
        received = reply.received_at if reply.received_at is not None else time.monotonic()
        return self.clock.add(sent, reply["monotonic"], received)

    async def sync_clock(self, exchanges: int = 5) -> ClockOffset:
        """Estimates the daemon's clock with ``exchanges`` ``clock``
        exchanges in a row (the least round trip wins, NTP's rule) and
        returns :attr:`clock`: ``clock.offset`` is the daemon's time minus
        ``time.monotonic()``, ``clock.uncertainty`` the most it can be off
        by (half the best round trip). Frame reports do it by themselves
        when there is no estimate yet, and add an exchange every 10 s."""
        for _ in range(max(1, exchanges)):
            await self.clock_exchange()
        return self.clock

    async def _offset(self) -> float:
        """The offset for a report: estimated first if there is none, and
        refreshed in the background when it is getting old."""
        offset = self.clock.offset
        if offset is None:
            await self.sync_clock()
            offset = self.clock.offset
            assert offset is not None
        elif self.clock.wants_exchange(time.monotonic(), CLOCK_REFRESH) and (
                self._clock_refresh is None or self._clock_refresh.done()):
            self._clock_refresh = asyncio.get_running_loop().create_task(self._refresh_clock())
        return offset

    async def _refresh_clock(self) -> None:
        try:
            await self.clock_exchange()
        except (TransitiondError, ConnectionError, asyncio.TimeoutError):
            pass        # the next report tries again

    async def report_frames(self, frames: Iterable[Tuple[int, Optional[float]]], *,
                            confirm: bool = False) -> int:
        """Reports presented frames for touch to frame: each item is
        ``(seq, presented_at)``, the ``seq`` of an event line and when the
        frame that first showed it was presented, on the client's clock
        (``time.monotonic()``; None: now). The times are converted to the
        daemon's clock by :attr:`clock` (estimated first if need be) and
        sent in ``frames`` commands of at most 64 pairs, without waiting
        for a reply; with ``confirm`` each command has an ``id`` and its
        ``ok`` is awaited (a refusal raises :class:`CommandError`). The
        daemon counts a client's seqs once each and only rising, at most
        240 a second, and joins only lines that input made (``began``,
        ``changed``, ``ended``; not ``animating``). Returns how many pairs
        were sent."""
        now = time.monotonic()
        pairs: List[Tuple[int, float]] = []
        for seq, presented in frames:
            if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
                raise ValueError(f"a seq is a whole number from 0 (got {seq!r})")
            at = now if presented is None else float(presented)
            if not math.isfinite(at):
                raise ValueError(f"a presentation time must be finite (got {presented!r})")
            pairs.append((seq, at))
        if not pairs:
            return 0
        offset = await self._offset()
        for start in range(0, len(pairs), FRAMES_PER_COMMAND):
            batch = [[seq, round(at + offset, 6)] for seq, at in pairs[start:start + FRAMES_PER_COMMAND]]
            command = {"cmd": "frames", "frames": batch}
            if confirm:
                await self.command(command)
            else:
                transport = self._transport
                if transport is None:
                    raise ConnectionResetError(f"not connected to {self.where}")
                await transport.send(command)
        return len(pairs)

    async def report_frame(self, seq: int, presented_at: Optional[float] = None, *,
                           confirm: bool = False) -> int:
        """Reports that the frame that first showed the line with ``seq``
        was presented at ``presented_at`` (``time.monotonic()``; None:
        now). See :meth:`report_frames`."""
        return await self.report_frames([(seq, presented_at)], confirm=confirm)


async def _send_quietly(transport: Transport, command: Dict[str, Any]) -> None:
    try:
        await transport.send(command)
    except (ConnectionError, OSError):
        pass        # the read loop sees the drop


def _key(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _is_refusal(error: BaseException) -> bool:
    """Errors that retrying cannot fix: no permission to connect, a refused
    WebSocket handshake (e.g. 403 for the Origin)."""
    if isinstance(error, PermissionError):
        return True
    return type(error).__name__ in ("InvalidStatus", "InvalidStatusCode", "InvalidHandshake", "InvalidURI")


def _is_transient(error: BaseException) -> bool:
    """Errors that a later attempt may not meet: nothing listening yet, a
    connection dropped during the handshake (a daemon that is stopping or
    starting), a time-out."""
    if isinstance(error, (OSError, ProtocolError, asyncio.TimeoutError, EOFError)):
        return True
    return type(error).__name__ in ("InvalidMessage", "ConnectionClosed", "ConnectionClosedError",
                                    "ConnectionClosedOK")


def _describe(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
