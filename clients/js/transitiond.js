// transitiond-client: the browser and Node client of transitiond's WebSocket
// transport. One ES module, no dependencies, no build step.
//
//   import { TransitiondClient } from './transitiond.js';
//   const client = new TransitiondClient(`ws://${location.host}/stream`);
//   client.on('began', (e) => console.log(e.transition, e.progress));
//   client.connect();
//   requestAnimationFrame(function frame(now) {
//     draw(client.progressAt('back', now));
//     requestAnimationFrame(frame);
//   });
//
// The protocol (hello, the event stream, the commands) is the daemon's
// socket protocol, one JSON object per WebSocket text message: see
// docs/protocol.md and docs/kiosk-web.md in the transitiond repository.

/** The protocol version this client speaks. */
export const PROTOCOL = 1;

const TRANSITION_EVENTS = new Set(['began', 'changed', 'ended', 'animating', 'finished', 'cancelled']);
/** The lines a touch makes, which touch to frame measures. */
const TOUCH_EVENTS = new Set(['began', 'changed', 'ended']);
const REPLY_TYPES = new Set(['pong', 'ok', 'state', 'clock', 'error']);

const DEFAULTS = Object.freeze({
  transitions: null,
  reconnect: true,
  backoff: Object.freeze({ initial: 0.25, max: 10, factor: 2, jitter: 0.3 }),
  replyTimeout: 10,
  delay: 0.006,
  maxExtrapolation: 1 / 60,
  keepSamples: 0.5,
  protocols: undefined,
  reportFrames: true,
  frameBatch: 8,
  clockExchanges: 5,
  clockSpacing: 0.05,
  clockInterval: 30,
  requestAnimationFrame: undefined,
  cancelAnimationFrame: undefined,
});

/** Clock exchanges kept to choose the estimate from, and for how long (s). */
const CLOCK_WINDOW = 16;
const CLOCK_MAX_AGE = 60;
/** At most this many [seq, time] pairs in one `frames` command (the daemon's limit). */
const MAX_FRAME_PAIRS = 64;

const nowMs = () => globalThis.performance.now();

/** The event object a client dispatches: `detail` is the message. */
export class TransitiondEvent extends Event {
  constructor(type, detail) {
    super(type);
    this.detail = detail;
  }
}

/** A rejected command: `code` and `message` are the daemon's. */
export class CommandError extends Error {
  constructor(reply) {
    super(reply && reply.message ? `${reply.code}: ${reply.message}` : String(reply && reply.code));
    this.name = 'CommandError';
    this.code = reply ? reply.code : undefined;
    this.reply = reply;
  }
}

function freshEntry(name) {
  return {
    name,
    gesture: undefined,
    fingers: undefined,
    edge: undefined,
    direction: undefined,
    phase: 'idle',
    progress: 0,
    velocity: 0,
    values: {},
    target: undefined,
    decision: undefined,
    reason: undefined,
    time: undefined,
    seq: undefined,
    synthetic: false,
    finished: 0,
    cancelled: 0,
    restingValues: undefined,
    samples: [],
  };
}

function publicState(entry) {
  const { samples, ...rest } = entry;
  const state = { ...rest, values: { ...entry.values } };
  if (entry.snapPoints) {
    state.snapPoints = [...entry.snapPoints];
    if (entry.rest !== undefined) state.restIndex = nearestIndex(entry.snapPoints, entry.rest);
  }
  return state;
}

/** The index of the snap point nearest `p` (a tie goes to the lower one). */
function nearestIndex(points, p) {
  let best = 0;
  for (let k = 1; k < points.length; k += 1) {
    if (Math.abs(points[k] - p) < Math.abs(points[best] - p)) best = k;
  }
  return best;
}

/** Where a transition rests: its `rest` with snap points, else 0. */
function restOf(entry) {
  return entry.snapPoints && entry.rest !== undefined ? entry.rest : 0;
}

function lerp(a, b, f) {
  return a + (b - a) * f;
}

/**
 * A client of transitiond's WebSocket transport: keeps the `hello`, mirrors
 * every transition's state from the stream, reconnects with capped
 * exponential backoff and closes what was in flight with a synthetic
 * `cancelled` when the connection drops, and tells what progress to draw at
 * an animation-frame timestamp (`progressAt`).
 */
export class TransitiondClient extends EventTarget {
  /**
   * @param {string} url  e.g. `ws://127.0.0.1:8765/stream`
   * @param {object} [options]  see transitiond.d.ts
   */
  constructor(url, options = {}) {
    super();
    this.url = url;
    this.options = {
      ...DEFAULTS,
      ...options,
      backoff: { ...DEFAULTS.backoff, ...(options.backoff || {}) },
    };
    this.WebSocket = options.WebSocket || globalThis.WebSocket;
    if (typeof this.WebSocket !== 'function') {
      throw new TypeError(
        'no WebSocket: pass options.WebSocket (Node 20 needs --experimental-websocket, or a class such as ws)');
    }
    /** The last `hello` (undefined before the first). */
    this.hello = undefined;
    /** The seq of the last event or snapshot. */
    this.lastSeq = 0;
    /** The latest event time seen, seconds on the daemon's clock. */
    this.lastTime = 0;
    /**
     * Page clock − daemon clock, in seconds, for this connection: the
     * minimum of (arrival − event.time) over the events received on it;
     * undefined until the first event.
     */
    this.clockOffset = undefined;
    /**
     * Daemon clock − page clock, in seconds (`performance.now()` / 1000 +
     * this = the daemon's `CLOCK_MONOTONIC`), for this connection, from its
     * `clock` exchanges: of the recent ones, the one with the least round
     * trip wins; undefined until one has come back. Only estimated while
     * frames are reported (see `reportFrames`).
     */
    this.daemonOffset = undefined;
    /** Half the winning exchange's round trip, seconds (undefined with no estimate). */
    this.daemonOffsetUncertainty = undefined;
    /** [seq, time] pairs sent in `frames` commands so far (every connection). */
    this.framesReported = 0;
    /** Connections opened so far. */
    this.connections = 0;
    this._entries = new Map();
    this._ws = null;
    this._wanted = false;
    this._attempt = 0;
    this._timer = null;
    this._nextId = 1;
    this._pending = new Map();
    this._reporter = null;
    for (const name of this.options.transitions || []) this._entries.set(name, freshEntry(name));
  }

  // -- connection -----------------------------------------------------------

  /** Connects (and keeps reconnecting until `close()`). Returns this. */
  connect() {
    this._wanted = true;
    if (!this._ws && !this._timer) this._open();
    return this;
  }

  /** Closes the connection and stops reconnecting. */
  close(code = 1000, reason = '') {
    this._wanted = false;
    if (this._timer) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    const ws = this._ws;
    if (ws) {
      this._detach(ws, { code, reason, wasClean: true });
      try {
        ws.close(code, reason);
      } catch {
        // already closing
      }
    }
  }

  /** True while a connection is open. */
  get connected() {
    return !!this._ws && this._ws.readyState === 1;
  }

  _open() {
    this._timer = null;
    let ws;
    try {
      ws = this.options.protocols === undefined
        ? new this.WebSocket(this.url)
        : new this.WebSocket(this.url, this.options.protocols);
    } catch (error) {
      this._emit('connect-error', { error });
      this._schedule();
      return;
    }
    this._ws = ws;
    this.clockOffset = undefined;
    ws.onmessage = (event) => {
      const at = nowMs();
      if (this._ws !== ws) return;
      if (typeof event.data !== 'string') return; // the daemon sends text only
      this._receive(event.data, at);
    };
    let opened = false;
    ws.onopen = () => {
      if (this._ws !== ws) return;
      opened = true;
      this.connections += 1;
      this._emit('open', { url: this.url, connection: this.connections });
    };
    // Browsers follow an error with a close event; some WebSocket
    // implementations (Node 20's) leave a connection that failed to open in
    // CONNECTING with no close event. So a failure before the open ends the
    // connection here, and an error after it if no close comes within 1 s.
    const failed = () => {
      if (this._ws !== ws) return;
      this._detach(ws, { code: 1006, reason: 'connection failed', wasClean: false });
      try {
        ws.close();
      } catch {
        // not open
      }
      this._schedule();
    };
    ws.onerror = () => {
      if (!opened) failed();
      else setTimeout(failed, 1000);
    };
    ws.onclose = (event) => {
      if (this._ws !== ws) return;
      this._detach(ws, { code: event.code, reason: event.reason, wasClean: event.wasClean });
      this._schedule();
    };
  }

  /** The connection `ws` is gone: close what was in flight, fail replies. */
  _detach(ws, info) {
    if (this._ws !== ws) return;
    this._ws = null;
    ws.onopen = ws.onmessage = ws.onclose = null;
    ws.onerror = () => {};
    for (const [, pending] of this._pending) {
      clearTimeout(pending.timer);
      pending.reject(new Error('connection closed before the reply'));
    }
    this._pending.clear();
    this._stopReporting();
    this._cancelInFlight();
    const willReconnect = this._wanted && this.options.reconnect;
    this._emit('close', { ...info, willReconnect });
  }

  _schedule() {
    if (!this._wanted || !this.options.reconnect || this._timer) return;
    const delay = this.nextDelay();
    this._attempt += 1;
    this._emit('reconnecting', { attempt: this._attempt, delay });
    this._timer = setTimeout(() => this._open(), delay * 1000);
  }

  /**
   * The wait before the next connection attempt, in seconds:
   * `initial × factor^attempt`, capped at `max`, then scaled by a random
   * factor in [1 − jitter, 1]. The attempt count goes back to 0 when a
   * connection receives its `hello`.
   */
  nextDelay() {
    const b = this.options.backoff;
    const base = Math.min(b.max, b.initial * b.factor ** this._attempt);
    return base * (1 - b.jitter * Math.random());
  }

  // -- messages ---------------------------------------------------------------

  _receive(text, at) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      this._emit('protocol-error', { text });
      return;
    }
    if (!message || typeof message !== 'object' || typeof message.type !== 'string') return;
    Object.defineProperty(message, 'receivedAt', { value: at, enumerable: false, writable: true });
    const type = message.type;
    if (type === 'hello') {
      this._attempt = 0; // a good connection: the next wait starts again from `initial`
      this._applySnapshot(message, true);
      if (this._ws && (!this._reporter || this._reporter.ws !== this._ws)) this._startReporting(this._ws);
      this._emit('hello', message);
      if (this.options.transitions && this.options.transitions.length) {
        this.send({ cmd: 'subscribe', transitions: this.options.transitions }).catch(() => {});
      }
      return;
    }
    if (TRANSITION_EVENTS.has(type) && typeof message.transition === 'string') {
      if (this.options.transitions && !this.options.transitions.includes(message.transition)) return;
      this._applyEvent(message, at);
      // Only what a touch made joins (began, changed, ended): an animation
      // frame's line is time's, and reporting it would hide the touch's.
      if (this._reporter && TOUCH_EVENTS.has(type) && typeof message.seq === 'number' && !message.synthetic
          && message.seq > this._reporter.applied) {
        this._reporter.applied = message.seq;
      }
      this._emit('event', message);
      this._emit(type, message);
      return;
    }
    if (REPLY_TYPES.has(type)) {
      if (type === 'state') this._applySnapshot(message, false);
      const pending = message.id !== undefined ? this._pending.get(message.id) : undefined;
      if (pending) {
        this._pending.delete(message.id);
        clearTimeout(pending.timer);
        if (type === 'error') pending.reject(new CommandError(message));
        else pending.resolve(message);
      }
      this._emit('reply', message);
      if (type === 'error') this._emit('error', message);
      return;
    }
    this._emit('message', message);
  }

  _entry(name) {
    let entry = this._entries.get(name);
    if (!entry) {
      entry = freshEntry(name);
      this._entries.set(name, entry);
    }
    return entry;
  }

  /** `hello` and `state`: every configured transition idle, then the active ones. */
  _applySnapshot(snapshot, isHello) {
    if (isHello) this.hello = snapshot;
    const previous = this._entries;
    this._entries = new Map();
    const carry = (name) => {
      const entry = freshEntry(name);
      const old = previous.get(name);
      if (old) {
        entry.finished = old.finished;
        entry.cancelled = old.cancelled;
        entry.restingValues = old.restingValues;
      }
      return entry;
    };
    for (const info of snapshot.transitions || []) {
      const entry = carry(info.name);
      entry.gesture = info.gesture;
      entry.fingers = info.fingers;
      entry.edge = info.edge;
      entry.direction = info.direction;
      // A transition with snap points rests where the snapshot says (the
      // values seen at its old rest are kept only if it rests there still).
      if (Array.isArray(info.snap_points)) {
        entry.snapPoints = [...info.snap_points];
        entry.rest = typeof info.rest === 'number' ? info.rest : 0;
        entry.progress = entry.rest;
      }
      const old = previous.get(info.name);
      if (old && restOf(old) !== restOf(entry)) entry.restingValues = undefined;
      this._entries.set(info.name, entry);
    }
    for (const name of this.options.transitions || []) {
      if (!this._entries.has(name)) this._entries.set(name, carry(name));
    }
    for (const active of snapshot.active || []) {
      if (!this._entries.has(active.transition)) this._entries.set(active.transition, carry(active.transition));
      const entry = this._entries.get(active.transition);
      entry.phase = active.phase;
      entry.progress = active.progress;
      entry.values = { ...(active.values || {}) };
      entry.target = active.phase === 'animating' ? active.target : undefined;
      if (entry.target !== undefined) {
        if (entry.snapPoints) {
          entry.decision = 'snap';
          entry.targetIndex = nearestIndex(entry.snapPoints, entry.target);
        } else {
          entry.decision = entry.target >= 0.5 ? 'finish' : 'cancel';
        }
      }
    }
    if (typeof snapshot.seq === 'number') this.lastSeq = snapshot.seq;
  }

  _applyEvent(event, at) {
    const entry = this._entry(event.transition);
    if (typeof event.seq === 'number') this.lastSeq = event.seq;
    if (typeof event.time === 'number') {
      this.lastTime = Math.max(this.lastTime, event.time);
      if (!event.synthetic) {
        const offset = at / 1000 - event.time;
        if (this.clockOffset === undefined || offset < this.clockOffset) this.clockOffset = offset;
      }
    }
    entry.progress = event.progress;
    entry.velocity = event.velocity;
    entry.values = { ...(event.values || {}) };
    entry.time = event.time;
    entry.seq = event.seq;
    entry.synthetic = !!event.synthetic;
    switch (event.type) {
      case 'began':
        entry.phase = 'interacting';
        entry.decision = entry.reason = entry.target = undefined;
        if (entry.snapPoints) entry.targetIndex = undefined;
        entry.samples = [];
        break;
      case 'changed':
        entry.phase = 'interacting';
        break;
      case 'ended':
        entry.phase = 'animating';
        entry.decision = event.decision;
        entry.reason = event.reason;
        if (typeof event.target === 'number') entry.target = event.target;
        else entry.target = event.decision === 'finish' ? 1 : event.decision === 'cancel' ? 0 : undefined;
        if (entry.snapPoints) {
          entry.targetIndex = typeof event.index === 'number' ? event.index
            : entry.target !== undefined ? nearestIndex(entry.snapPoints, entry.target) : undefined;
        }
        break;
      case 'animating':
        entry.phase = 'animating';
        if (typeof event.target === 'number') entry.target = event.target;
        break;
      case 'finished':
        entry.phase = 'idle';
        entry.target = undefined;
        entry.finished += 1;
        // With snap points, settling (on any point) is `finished` there.
        if (entry.snapPoints) {
          entry.rest = event.progress;
          entry.targetIndex = undefined;
        }
        break;
      case 'cancelled':
        entry.phase = 'idle';
        entry.target = undefined;
        entry.cancelled += 1;
        break;
      default:
        break;
    }
    if (event.progress === restOf(entry) && event.values && Object.keys(event.values).length) {
      entry.restingValues = { ...event.values };
    }
    if (typeof event.time === 'number' && !event.synthetic) {
      const samples = entry.samples;
      // A sample's time never goes back; a repeated time replaces the sample.
      while (samples.length && samples[samples.length - 1].time >= event.time) samples.pop();
      samples.push({ time: event.time, progress: event.progress, velocity: event.velocity || 0, values: entry.values });
      const horizon = event.time - this.options.keepSamples;
      let drop = 0;
      while (drop < samples.length - 2 && samples[drop + 1].time < horizon) drop += 1;
      if (drop) samples.splice(0, drop);
    } else {
      entry.samples = [];
    }
  }

  /**
   * A `cancelled` (synthetic, progress 0 — or the point it rests at, with
   * snap points) for everything in flight.
   */
  _cancelInFlight() {
    let k = 0;
    for (const entry of [...this._entries.values()]) {
      if (entry.phase === 'idle') continue;
      k += 1;
      const event = {
        type: 'cancelled',
        transition: entry.name,
        seq: this.lastSeq + 1,
        time: this.lastTime,
        progress: restOf(entry),
        velocity: 0,
        values: { ...(entry.restingValues || {}) },
        synthetic: true,
      };
      Object.defineProperty(event, 'receivedAt', { value: nowMs(), enumerable: false, writable: true });
      this._applyEvent(event, event.receivedAt);
      this._emit('event', event);
      this._emit('cancelled', event);
    }
    return k;
  }

  // -- commands ---------------------------------------------------------------

  /**
   * Sends a command (`{cmd: 'ping'}`, `{cmd: 'drive', transition, progress}`…).
   * It gets an `id` if it has none; the promise resolves with the reply
   * (`pong`, `ok`, `state`) or rejects with a `CommandError` (an `error`
   * reply), when the connection closes first, or after `replyTimeout` s.
   */
  send(command) {
    if (!this.connected) return Promise.reject(new Error('not connected'));
    const message = { ...command };
    if (message.id === undefined) message.id = this._nextId++;
    const text = JSON.stringify(message);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this._pending.delete(message.id);
        reject(new Error(`no reply to ${message.cmd} within ${this.options.replyTimeout} s`));
      }, this.options.replyTimeout * 1000);
      this._pending.set(message.id, { resolve, reject, timer });
      try {
        this._ws.send(text);
      } catch (error) {
        clearTimeout(timer);
        this._pending.delete(message.id);
        reject(error);
      }
    });
  }

  /**
   * `run`: animates `transition` without a gesture. `to` is `'finish'` or
   * `'cancel'`; for a transition with snap points, a snap point (a number
   * from 0 to 1) or `{index: k}` (its k-th point, from 0) — a UI's
   * "next"/"previous" button. Sent as `{cmd: 'run', transition, to}` or
   * `{cmd: 'run', transition, index}`; resolves with the `ok` reply as
   * `send` does (a `CommandError` for the daemon's `bad-field`, e.g. a
   * point that is not one of its snap points).
   */
  run(transition, to = 'finish', { id } = {}) {
    let where;
    if (to === 'finish' || to === 'cancel' || (typeof to === 'number' && Number.isFinite(to))) {
      where = { to };
    } else if (to && typeof to === 'object' && Number.isInteger(to.index) && to.index >= 0) {
      where = { index: to.index };
    } else {
      return Promise.reject(new TypeError(
        `run: 'to' must be 'finish', 'cancel', a snap point (a number) or {index: k} (got ${JSON.stringify(to)})`));
    }
    return this.send({ cmd: 'run', transition, ...where, ...(id === undefined ? {} : { id }) });
  }

  // -- touch to frame ---------------------------------------------------------

  /**
   * The connection `ws` has its `hello`: where there are animation frames
   * (`requestAnimationFrame`, a browser's or `options.requestAnimationFrame`)
   * and `reportFrames` is on, agree clocks with the daemon (`clock`
   * exchanges: `clockExchanges` of them `clockSpacing` s apart, again every
   * `clockInterval` s) and report presented frames (`frames`).
   */
  _startReporting(ws) {
    this._stopReporting();
    const raf = this.options.requestAnimationFrame
      || (globalThis.requestAnimationFrame ? (f) => globalThis.requestAnimationFrame(f) : undefined);
    if (!this.options.reportFrames || typeof raf !== 'function') return;
    const caf = this.options.cancelAnimationFrame
      || (globalThis.cancelAnimationFrame ? (h) => globalThis.cancelAnimationFrame(h) : () => {});
    const r = {
      ws, raf, caf, handle: undefined, timer: null, stopped: false,
      exchanges: [], applied: 0, framed: 0, shown: undefined, pending: [],
    };
    this._reporter = r;
    this.daemonOffset = undefined;
    this._clockBurst(r, 0);
    const loop = (now) => {
      if (r.stopped) return;
      this._frame(r, now);
      r.handle = raf(loop);
    };
    r.handle = raf(loop);
  }

  _stopReporting() {
    const r = this._reporter;
    if (!r) return;
    r.stopped = true;
    if (r.timer) clearTimeout(r.timer);
    if (r.handle !== undefined) r.caf(r.handle);
    this._reporter = null;
    this.daemonOffset = undefined;
    this.daemonOffsetUncertainty = undefined;
  }

  /** The `k`-th exchange of a burst; the next one follows it (or the next burst). */
  _clockBurst(r, k) {
    r.timer = null;
    if (r.stopped) return;
    const next = () => {
      if (r.stopped) return;
      const last = k + 1 >= Math.max(1, this.options.clockExchanges);
      const wait = last ? this.options.clockInterval : this.options.clockSpacing;
      r.timer = setTimeout(() => this._clockBurst(r, last ? 0 : k + 1), wait * 1000);
    };
    const t0 = nowMs();
    this.send({ cmd: 'clock' }).then((reply) => {
      if (r.stopped) return;
      this._clockExchange(r, t0 / 1000, reply.monotonic, reply.receivedAt / 1000);
      next();
    }, (error) => {
      // A daemon without `clock` (older than protocol.md's `clock`): no
      // estimate, so no frames reported on this connection.
      if (error instanceof CommandError && error.code === 'unknown-command') return;
      next();
    });
  }

  /**
   * One exchange: asked at `t0`, answered with the daemon's `ts`, the answer
   * came at `t1` (t0, t1 page seconds). The daemon is ahead by
   * ts − (t0 + t1) / 2, within half the round trip; of the last
   * `CLOCK_WINDOW` exchanges (none older than `CLOCK_MAX_AGE` s) the one
   * with the least round trip wins.
   */
  _clockExchange(r, t0, ts, t1) {
    if (![t0, ts, t1].every(Number.isFinite) || t1 < t0) return;
    const exchange = { end: t1, offset: ts - (t0 + t1) / 2, half: (t1 - t0) / 2 };
    r.exchanges = r.exchanges.filter((e) => t1 - e.end <= CLOCK_MAX_AGE);
    if (r.exchanges.length >= CLOCK_WINDOW) r.exchanges.shift();
    r.exchanges.push(exchange);
    let best = r.exchanges[0];
    for (const e of r.exchanges) if (e.half < best.half) best = e;
    this.daemonOffset = best.offset;
    this.daemonOffsetUncertainty = best.half;
    this._emit('clock', { offset: best.offset, uncertainty: best.half, roundTrip: t1 - t0 });
  }

  /**
   * One animation frame, at `now` (its timestamp, ms on the page's clock).
   * The newest line applied before the previous frame's callback was shown
   * by that frame, presented now: [its seq, now on the daemon's clock] is
   * reported (once the offset is known; frames before are not). The newest
   * line applied since is shown by this frame. Reports go `frameBatch`
   * frames at a time, and at once when a frame shows nothing new.
   */
  _frame(r, now) {
    if (r.shown !== undefined) {
      if (this.daemonOffset !== undefined) {
        r.pending.push([r.shown, Math.round((now / 1000 + this.daemonOffset) * 1e6) / 1e6]);
      }
      r.shown = undefined;
    }
    if (r.applied > r.framed) {
      r.shown = r.applied;
      r.framed = r.applied;
    }
    const batch = Math.min(MAX_FRAME_PAIRS, Math.max(1, this.options.frameBatch));
    if (r.pending.length >= batch || (r.pending.length && r.shown === undefined)) this._sendFrames(r);
  }

  _sendFrames(r) {
    const frames = r.pending.splice(0, MAX_FRAME_PAIRS);
    if (!frames.length || this._ws !== r.ws || !this.connected) return;
    try {
      r.ws.send(JSON.stringify({ cmd: 'frames', frames }));
    } catch {
      return;
    }
    this.framesReported += frames.length;
    this._emit('frames', { frames });
  }

  // -- events -----------------------------------------------------------------

  _emit(type, detail) {
    this.dispatchEvent(new TransitiondEvent(type, detail));
  }

  /** `addEventListener(type, e => handler(e.detail))`; returns a function that removes it. */
  on(type, handler) {
    const listener = (event) => handler(event.detail);
    this.addEventListener(type, listener);
    return () => this.removeEventListener(type, listener);
  }

  /**
   * A promise for the next `type` whose detail satisfies `predicate`,
   * rejected after `timeout` seconds (default 10).
   */
  once(type, predicate = () => true, { timeout = 10 } = {}) {
    return new Promise((resolve, reject) => {
      let timer;
      const off = this.on(type, (detail) => {
        let ok = false;
        try {
          ok = predicate(detail);
        } catch (error) {
          off();
          clearTimeout(timer);
          reject(error);
          return;
        }
        if (ok) {
          off();
          clearTimeout(timer);
          resolve(detail);
        }
      });
      timer = setTimeout(() => {
        off();
        reject(new Error(`no '${type}' within ${timeout} s`));
      }, timeout * 1000);
    });
  }

  // -- state ------------------------------------------------------------------

  /** The names of the transitions known (configured, then seen). */
  get transitions() {
    return [...this._entries.keys()];
  }

  /** A copy of one transition's state, or undefined. */
  state(name) {
    const entry = this._entries.get(name);
    return entry ? publicState(entry) : undefined;
  }

  /** The transitions not idle. */
  get inFlight() {
    return [...this._entries.values()].filter((e) => e.phase !== 'idle').map(publicState);
  }

  /**
   * The progress and values to draw at `now` (ms on the page's clock, a
   * `requestAnimationFrame` timestamp or `performance.now()`).
   *
   * The daemon time drawn is `now/1000 − clockOffset − delay`. Between two
   * samples it is interpolated linearly; before the first it is the first;
   * past the newest it is extrapolated by the newest velocity for at most
   * `maxExtrapolation` s (never past the animation's target, within 0…1
   * while interacting), with the newest values. When idle (after
   * `finished`/`cancelled`) it is exactly the last progress (1 or 0).
   */
  frameAt(name, now = nowMs()) {
    const entry = this._entries.get(name);
    if (!entry) return { progress: 0, values: {}, phase: 'idle' };
    const samples = entry.samples;
    if (entry.phase === 'idle' || this.clockOffset === undefined || samples.length === 0) {
      return { progress: entry.progress, values: { ...entry.values }, phase: entry.phase };
    }
    const t = now / 1000 - this.clockOffset - this.options.delay;
    const first = samples[0];
    if (t <= first.time) return { progress: first.progress, values: { ...first.values }, phase: entry.phase };
    const last = samples[samples.length - 1];
    if (t >= last.time) {
      const ahead = Math.min(t - last.time, this.options.maxExtrapolation);
      let progress = last.progress + last.velocity * ahead;
      if (entry.phase === 'animating' && entry.target !== undefined) {
        const lo = Math.min(last.progress, entry.target);
        const hi = Math.max(last.progress, entry.target);
        progress = Math.min(hi, Math.max(lo, progress));
      } else if (entry.snapPoints) {
        // A rubber band may carry it past the first or last point.
        const lo = Math.min(entry.snapPoints[0], last.progress);
        const hi = Math.max(entry.snapPoints[entry.snapPoints.length - 1], last.progress);
        progress = Math.min(hi, Math.max(lo, progress));
      } else {
        progress = Math.min(1, Math.max(0, progress));
      }
      return { progress, values: { ...last.values }, phase: entry.phase };
    }
    // Binary search for the bracketing pair a.time <= t < b.time.
    let lo = 0;
    let hi = samples.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (samples[mid].time <= t) lo = mid;
      else hi = mid;
    }
    const a = samples[lo];
    const b = samples[hi];
    const f = (t - a.time) / (b.time - a.time);
    const values = {};
    for (const key of Object.keys(b.values)) {
      values[key] = key in a.values ? lerp(a.values[key], b.values[key], f) : b.values[key];
    }
    return { progress: lerp(a.progress, b.progress, f), values, phase: entry.phase };
  }

  /** `frameAt(name, now).progress`. */
  progressAt(name, now = nowMs()) {
    return this.frameAt(name, now).progress;
  }

  /**
   * On every animation frame, sets `--PREFIX-progress` and `--PREFIX-KEY`
   * for each keyframe value on `element` (PREFIX = the transition's name
   * unless `options.prefix`; a value missing from the frame is removed, so
   * `var(--back-dim, 1)` falls back to its default), and calls `options.onFrame(frame, now)` after
   * setting them. Returns a function that stops it.
   */
  bindCSS(element, name, options = {}) {
    const prefix = options.prefix || name;
    const raf = globalThis.requestAnimationFrame
      ? (f) => globalThis.requestAnimationFrame(f)
      : (f) => setTimeout(() => f(nowMs()), 1000 / 60);
    const caf = globalThis.cancelAnimationFrame
      ? (h) => globalThis.cancelAnimationFrame(h)
      : (h) => clearTimeout(h);
    let handle;
    let stopped = false;
    let set = new Set();
    const frame = (now) => {
      if (stopped) return;
      const drawn = this.frameAt(name, now);
      element.style.setProperty(`--${prefix}-progress`, String(drawn.progress));
      const keys = new Set();
      for (const [key, value] of Object.entries(drawn.values)) {
        element.style.setProperty(`--${prefix}-${key}`, String(value));
        keys.add(key);
      }
      // A value the stream no longer carries (a synthetic `cancelled` before
      // any event at progress 0) falls back to the stylesheet's default.
      for (const key of set) if (!keys.has(key)) element.style.removeProperty(`--${prefix}-${key}`);
      set = keys;
      if (options.onFrame) options.onFrame(drawn, now);
      handle = raf(frame);
    };
    handle = raf(frame);
    return () => {
      stopped = true;
      caf(handle);
    };
  }
}

export default TransitiondClient;
