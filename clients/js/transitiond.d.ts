// Type declarations for transitiond.js, the client of transitiond's
// WebSocket transport.

export declare const PROTOCOL: 1;

export type Phase = 'idle' | 'interacting' | 'animating';
export type EventType = 'began' | 'changed' | 'ended' | 'animating' | 'finished' | 'cancelled';
/** `snap`: a transition with snap points, ending at `target` (its `index`th point). */
export type Decision = 'finish' | 'cancel' | 'snap';
/** What `run` animates to: finish or cancel; with snap points, a point (0…1) or its index. */
export type RunTarget = 'finish' | 'cancel' | number | { index: number };
export type Reason = 'released' | 'device-lost' | 'client-lost' | 'command' | 'shutdown' | 'reload' | 'palm' | 'stuck';

/** One configured transition, as `hello` lists it. */
export interface TransitionInfo {
  name: string;
  gesture: 'edge-pan' | 'swipe' | 'pinch' | string;
  fingers: number;
  /** edge-pan: the edge the finger pans in from. */
  edge?: 'left' | 'right' | 'top' | 'bottom';
  /** swipe: left | right | up | down; pinch: in | out. */
  direction?: 'left' | 'right' | 'up' | 'down' | 'in' | 'out';
  /** false while the UI has turned its gesture off (`enable`); absent when on. */
  enabled?: boolean;
  /** Its snap points (`snap_points`, or `pages = N`), ascending in 0…1; absent without. */
  snap_points?: number[];
  /** With snap points: the point it rests at now (0 at start). */
  rest?: number;
}

export interface ActiveTransition {
  transition: string;
  phase: 'interacting' | 'animating';
  progress: number;
  values: Record<string, number>;
  target?: number;
}

export interface Snapshot {
  protocol: number;
  version: string;
  transitions: TransitionInfo[];
  active: ActiveTransition[];
  seq?: number;
  /** How the panel's positions are mapped to the screen; absent for none. */
  geometry?: {
    rotation: 0 | 90 | 180 | 270;
    flip_x: boolean;
    flip_y: boolean;
    calibration: number[] | null;
    calibration_from: 'config' | 'udev' | 'none';
  };
  /** The exclusion regions in force (every client's `exclude`), each
   *  `[x0, y0, x1, y1]` in screen units (0…1); absent when there are none. */
  exclusions?: [number, number, number, number][];
  /** Filter mode only: what the touch filter keeps from the UI's copy. A
   *  rule that is off is absent (`block` is never listed: not applied yet). */
  filter?: FilterStatus;
  /** The live daemon: each attached panel's health (docs/protocol.md,
   *  "Panel health"); absent in a replay. */
  panels?: PanelStatus[];
  /** Which kiosk and config (docs/protocol.md, "Identity"): the config's
   *  `[identity]` (each key absent when not given) and its hash. */
  identity?: {
    kiosk?: string;
    site?: string;
    labels?: Record<string, string>;
    config_hash: string;
  };
  [key: string]: unknown;
}

/** One entry of `hello`'s and `state`'s `panels`. */
export interface PanelStatus {
  source: number;
  path: string;
  /** The median report rate while touched is below `[input] min_report_rate`. */
  degraded: boolean;
  /** Report intervals the rates stand on. */
  samples: number;
  /** Hz, median and 5th percentile while a contact moves; absent before the first interval. */
  report_rate_hz?: number;
  report_rate_p5_hz?: number;
  /** Interquartile range of the report intervals, ms. */
  jitter_ms?: number;
  resyncs: number;
  ghost_touches: number;
  stuck_contacts: number;
  [key: string]: unknown;
}

/** `hello`'s and `state`'s `filter` (docs/protocol.md). */
export interface FilterStatus {
  /** `[input] filter_hold`, seconds. */
  hold: number;
  max_contacts?: number;
  /** `[[filter.region]]` in order, in screen units (0…1); a region's own
   *  `max_contacts` when it has one. */
  regions?: { x: [number, number]; y: [number, number]; max_contacts?: number }[];
  ghost_touches?: 'quarantine';
  /** The ghost tap patterns confirmed and quarantined now; `device` (the
   *  panel's path) with several touchscreens selected. */
  ghost_patterns?: { device?: string; period: number; x_mm: number; y_mm: number; taps: number }[];
  /** Seconds. */
  stuck_after?: number;
  palm_mm?: number;
  transform?: true;
  [key: string]: unknown;
}

export interface HelloMessage extends Snapshot {
  type: 'hello';
  /** performance.now() (ms) when the message arrived; not enumerable. */
  readonly receivedAt: number;
}

export interface TransitionEvent {
  type: EventType;
  transition: string;
  seq: number;
  /** Seconds on the daemon's input clock. */
  time: number;
  progress: number;
  /** Progress per second. */
  velocity: number;
  values: Record<string, number>;
  /** `ended` only. */
  decision?: Decision;
  /** `ended` only. */
  reason?: Reason;
  /** `animating`: 1 or 0, or a snap point; `ended` of a transition with snap points: the snap point. */
  target?: number;
  /** `ended` of a transition with snap points: the target's index in `snap_points`, from 0. */
  index?: number;
  /** `began`/`changed`/`ended` of a transition with `report_position`: the fingers' centroid on the screen (0…1). */
  position?: { x: number; y: number };
  /** True on the `cancelled` the client makes when the connection drops. */
  synthetic?: boolean;
  /** CLOCK_MONOTONIC nanoseconds when the daemon sent it (benchmarks only). */
  sent?: number;
  /** performance.now() (ms) when the message arrived; not enumerable. */
  readonly receivedAt: number;
  [key: string]: unknown;
}

export interface Reply {
  type: 'pong' | 'ok' | 'state' | 'clock' | 'error';
  id?: number | string;
  cmd?: string;
  code?: string;
  message?: string;
  [key: string]: unknown;
}

export type Command =
  | { cmd: 'ping'; id?: number | string }
  | { cmd: 'state'; id?: number | string }
  | { cmd: 'subscribe'; transitions?: string[]; id?: number | string }
  | { cmd: 'run'; transition: string; to: 'finish' | 'cancel' | number; id?: number | string }
  | { cmd: 'run'; transition: string; index: number; id?: number | string }
  | { cmd: 'drive'; transition: string; progress: number; id?: number | string }
  | { cmd: 'release'; transition: string; velocity?: number; id?: number | string }
  | { cmd: 'cancel'; transition: string; id?: number | string }
  | { cmd: 'enable'; transition: string; enabled: boolean; id?: number | string }
  | { cmd: 'reload'; id?: number | string }
  | { cmd: 'clock'; id?: number | string }
  | { cmd: 'frames'; frames: [number, number][]; id?: number | string }
  | { cmd: 'exclude'; rects: [number, number, number, number][]; id?: number | string }
  | { cmd: 'filter_regions'; regions: { x: [number, number]; y: [number, number]; max_contacts?: number; block?: string[] }[] | null; id?: number | string }
  | { cmd: string; id?: number | string; [key: string]: unknown };

/** A transition as the client last saw it. */
export interface TransitionState {
  name: string;
  gesture?: string;
  fingers?: number;
  edge?: string;
  direction?: string;
  phase: Phase;
  progress: number;
  velocity: number;
  values: Record<string, number>;
  target?: number;
  decision?: Decision;
  reason?: Reason;
  /** The last event's time (daemon seconds) and seq. */
  time?: number;
  seq?: number;
  /** The last event was a synthetic `cancelled`. */
  synthetic: boolean;
  /** Times this client saw it finish / cancel (kept across hellos). */
  finished: number;
  cancelled: number;
  /** The values last seen at progress 0 (with snap points: at `rest`). */
  restingValues?: Record<string, number>;
  /** Only for a transition with snap points: its points (from `hello`/`state`). */
  snapPoints?: number[];
  /** Only with snap points: the point it rests at (from `hello`/`state`, then each `finished`). */
  rest?: number;
  /** Only with snap points: the index of `rest` in `snapPoints`. */
  restIndex?: number;
  /** Only with snap points: the index of `target` while animating (from `ended`'s `index`). */
  targetIndex?: number;
}

export interface Frame {
  progress: number;
  values: Record<string, number>;
  phase: Phase;
}

export interface Backoff {
  /** First wait, seconds (default 0.25). */
  initial?: number;
  /** Cap, seconds (default 10). */
  max?: number;
  /** Growth per failed attempt (default 2). */
  factor?: number;
  /** The wait is scaled by a random factor in [1 − jitter, 1] (default 0.3). */
  jitter?: number;
}

export interface ClientOptions {
  /** Only these transitions (sent as `subscribe` on every connection). */
  transitions?: string[] | null;
  /** A WebSocket class (default: the global one). */
  WebSocket?: new (url: string, protocols?: string | string[]) => WebSocket;
  protocols?: string | string[];
  /** Reconnect after the connection drops (default true). */
  reconnect?: boolean;
  backoff?: Backoff;
  /** Seconds to wait for a reply (default 10). */
  replyTimeout?: number;
  /** progressAt draws this many seconds behind the stream (default 0.006). */
  delay?: number;
  /** At most this many seconds of extrapolation past the newest sample (default 1/60). */
  maxExtrapolation?: number;
  /** Seconds of samples kept per transition (default 0.5). */
  keepSamples?: number;
  /**
   * Report presented frames to the daemon (touch to frame; default true).
   * Only where there are animation frames (`requestAnimationFrame`): the
   * client then agrees clocks with the daemon (`clock`) and sends `frames`.
   */
  reportFrames?: boolean;
  /** Frames per `frames` command (1…64, default 8); sooner when a frame shows nothing new. */
  frameBatch?: number;
  /** `clock` exchanges per estimate (default 5)… */
  clockExchanges?: number;
  /** …this many seconds apart (default 0.05)… */
  clockSpacing?: number;
  /** …and again every this many seconds (default 30). */
  clockInterval?: number;
  /** The animation-frame scheduler (default: the global `requestAnimationFrame`). */
  requestAnimationFrame?: (callback: (now: number) => void) => unknown;
  cancelAnimationFrame?: (handle: any) => void;
}

export interface CloseInfo {
  code: number;
  reason: string;
  wasClean: boolean;
  willReconnect: boolean;
}

export interface ClientEventMap {
  open: { url: string; connection: number };
  close: CloseInfo;
  reconnecting: { attempt: number; delay: number };
  'connect-error': { error: unknown };
  hello: HelloMessage;
  event: TransitionEvent;
  began: TransitionEvent;
  changed: TransitionEvent;
  ended: TransitionEvent;
  animating: TransitionEvent;
  finished: TransitionEvent;
  cancelled: TransitionEvent;
  reply: Reply;
  error: Reply;
  message: Record<string, unknown>;
  'protocol-error': { text: string };
  /** A `clock` exchange came back: the estimate now (seconds), and that exchange's round trip. */
  clock: { offset: number; uncertainty: number; roundTrip: number };
  /** A `frames` command was sent: its [seq, daemon time] pairs. */
  frames: { frames: [number, number][] };
}

export declare class TransitiondEvent<T = unknown> extends Event {
  readonly detail: T;
}

export declare class CommandError extends Error {
  readonly code: string | undefined;
  readonly reply: Reply;
}

export declare class TransitiondClient extends EventTarget {
  constructor(url: string, options?: ClientOptions);
  readonly url: string;
  /** The last hello (undefined before the first). */
  readonly hello: HelloMessage | undefined;
  readonly lastSeq: number;
  readonly lastTime: number;
  /** Page seconds − daemon seconds for this connection (min of arrival − time). */
  readonly clockOffset: number | undefined;
  /** Daemon CLOCK_MONOTONIC seconds − page seconds (`clock` exchanges; only while reporting frames). */
  readonly daemonOffset: number | undefined;
  /** Half the round trip of the exchange that gave `daemonOffset`, seconds. */
  readonly daemonOffsetUncertainty: number | undefined;
  /** [seq, time] pairs sent in `frames` commands so far. */
  readonly framesReported: number;
  readonly connections: number;
  readonly connected: boolean;
  readonly transitions: string[];
  readonly inFlight: TransitionState[];

  connect(): this;
  close(code?: number, reason?: string): void;
  nextDelay(): number;
  send(command: Command): Promise<Reply>;
  /** `{cmd: 'run', transition, to}` (or `index` for `{index: k}`); a TypeError rejection for anything else. */
  run(transition: string, to?: RunTarget, options?: { id?: number | string }): Promise<Reply>;
  on<K extends keyof ClientEventMap>(type: K, handler: (detail: ClientEventMap[K]) => void): () => void;
  once<K extends keyof ClientEventMap>(
    type: K,
    predicate?: (detail: ClientEventMap[K]) => boolean,
    options?: { timeout?: number },
  ): Promise<ClientEventMap[K]>;
  state(name: string): TransitionState | undefined;
  frameAt(name: string, now?: number): Frame;
  progressAt(name: string, now?: number): number;
  bindCSS(
    element: { style: { setProperty(name: string, value: string): void; removeProperty(name: string): unknown } },
    name: string,
    options?: { prefix?: string; onFrame?: (frame: Frame, now: number) => void },
  ): () => void;
}

export default TransitiondClient;
