// The JS client's touch-to-frame reports (clients/js/transitiond.js): the
// daemon's clock agreed by `clock` exchanges (the least round trip wins),
// and `frames` sent from animation frames — a line applied before one
// frame's callback counts as presented at the next callback's timestamp.
// A fake WebSocket, a fake requestAnimationFrame and a fake
// performance.now(); the timers between exchanges are node:test's mocks.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TransitiondClient } from '../../clients/js/transitiond.js';
import { FakeSocket } from './fake-socket.mjs';

/** performance.now() returns `clock.ms` while the test runs. */
function fakeClock(t, ms = 1000) {
  const clock = { ms };
  const real = performance.now;
  performance.now = () => clock.ms;
  t.after(() => { performance.now = real; });
  return clock;
}

/** requestAnimationFrame that the test runs: `tick(ms)` calls what was asked for, with timestamp ms. */
function fakeFrames() {
  let queue = new Map();
  let next = 1;
  const frames = {
    requestAnimationFrame: (f) => { queue.set(next, f); return next++; },
    cancelAnimationFrame: (h) => { queue.delete(h); },
    get waiting() { return queue.size; },
    tick(ms) {
      const run = queue;
      queue = new Map();
      for (const f of run.values()) f(ms);
    },
  };
  return frames;
}

const HELLO = {
  type: 'hello', protocol: 1, version: 'test',
  transitions: [{ name: 'back', gesture: 'edge-pan', fingers: 1, edge: 'left' }],
  active: [], seq: 0,
};

const line = (type, seq, progress = seq / 100) => ({
  type, transition: 'back', seq, time: seq / 240, progress, velocity: 0, values: {},
});

const settle = async () => { for (let k = 0; k < 5; k += 1) await Promise.resolve(); };

async function connected(t, options = {}) {
  const frames = fakeFrames();
  const client = new TransitiondClient('ws://fake/stream', {
    WebSocket: FakeSocket, reconnect: false,
    requestAnimationFrame: frames.requestAnimationFrame, cancelAnimationFrame: frames.cancelAnimationFrame,
    ...options,
  });
  t.after(() => client.close());
  const opened = client.once('open');
  client.connect();
  await opened;
  return { client, ws: FakeSocket.last, frames };
}

/** Answers the newest `clock` command: the daemon read `daemon` seconds, the answer arrives `after` ms later. */
async function answerClock(ws, clock, { daemon, after }) {
  const asked = ws.commands('clock').at(-1);
  clock.ms += after;
  ws.deliver({ type: 'clock', monotonic: daemon, id: asked.id });
  await settle();
}

test('clock: exchanges after hello, spaced, then again; the least round trip wins', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const clock = fakeClock(t, 1000);
  const { client, ws } = await connected(t);
  assert.equal(ws.commands('clock').length, 0, 'nothing before the hello');
  ws.deliver(HELLO);
  assert.equal(ws.commands('clock').length, 1, 'the first exchange at the hello');
  assert.equal(client.daemonOffset, undefined);

  // The daemon's clock is 5000 s ahead of the page's. Each exchange: the
  // way there takes `up` ms, the way back `down` ms (asymmetric, jittered).
  const TRUE = 5000;
  const trips = [[4, 1], [0.3, 0.5], [9, 2], [1, 6], [0.8, 0.2]];
  const seen = [];
  client.on('clock', (c) => seen.push(c));
  for (const [k, [up, down]] of trips.entries()) {
    const t0 = clock.ms;
    clock.ms += up;
    const daemon = (clock.ms / 1000) + TRUE;
    await answerClock(ws, clock, { daemon, after: down });
    assert.ok(Math.abs(client.daemonOffset - TRUE) <= client.daemonOffsetUncertainty + 1e-9,
      `exchange ${k}: ${client.daemonOffset} within ${client.daemonOffsetUncertainty}`);
    assert.ok(Math.abs(seen.at(-1).roundTrip - (clock.ms - t0) / 1000) < 1e-9);
    if (k < trips.length - 1) {
      // The next one is `clockSpacing` (50 ms) later, not before.
      t.mock.timers.tick(49);
      assert.equal(ws.commands('clock').length, k + 1);
      clock.ms += 50;
      t.mock.timers.tick(1);
      assert.equal(ws.commands('clock').length, k + 2);
    }
  }
  // The winner: the least round trip (0.3 ms there, 0.5 ms back): off by (0.3 − 0.5) / 2 ms.
  assert.ok(Math.abs(client.daemonOffsetUncertainty - 0.0004) < 1e-9, `${client.daemonOffsetUncertainty}`);
  assert.ok(Math.abs(client.daemonOffset - (TRUE + (0.3 - 0.5) / 2 / 1000)) < 1e-9, `${client.daemonOffset}`);

  // Then again after `clockInterval` (30 s); a slower exchange does not win.
  t.mock.timers.tick(29_999);
  assert.equal(ws.commands('clock').length, 5);
  clock.ms += 30_000;
  t.mock.timers.tick(1);
  assert.equal(ws.commands('clock').length, 6);
  clock.ms += 3;
  await answerClock(ws, clock, { daemon: clock.ms / 1000 + TRUE + 0.002, after: 3 });
  assert.ok(Math.abs(client.daemonOffsetUncertainty - 0.0004) < 1e-9, 'the 0.8 ms round trip still wins');

  // A new connection starts afresh.
  ws.onclose?.({ code: 1006, reason: '', wasClean: false });
  assert.equal(client.daemonOffset, undefined);
});

test('clock: an old daemon without `clock` gets no frames', async (t) => {
  const clock = fakeClock(t, 1000);
  const { client, ws, frames } = await connected(t);
  ws.deliver(HELLO);
  const asked = ws.commands('clock').at(-1);
  ws.deliver({ type: 'error', code: 'unknown-command', message: 'no such command', cmd: 'clock', id: asked.id });
  await settle();
  ws.deliver(line('began', 1));
  for (let k = 0; k < 5; k += 1) frames.tick((clock.ms += 16));
  assert.equal(client.daemonOffset, undefined);
  assert.equal(ws.commands('frames').length, 0);
});

test('frames: the newest line applied before a frame, presented at the next frame, on the daemon clock', async (t) => {
  const clock = fakeClock(t, 1000);
  const { client, ws, frames } = await connected(t, { frameBatch: 3 });
  ws.deliver(HELLO);
  assert.equal(frames.waiting, 1, 'a frame loop from the hello');

  // Before the offset is known: lines and frames, nothing reported.
  ws.deliver(line('began', 1));
  frames.tick(1016); // shows 1
  frames.tick(1032); // 1 presented: no offset yet
  assert.equal(ws.commands('frames').length, 0);

  // Offset: the daemon is 100 s ahead (a 0-length round trip).
  await answerClock(ws, clock, { daemon: clock.ms / 1000 + 100, after: 0 });
  assert.equal(client.daemonOffset, 100);
  const daemon = (ms) => Math.round((ms / 1000 + 100) * 1e6) / 1e6;

  // Frame A (1048) shows 2…4 (the newest, 4); frame B (1064) shows 5; frame
  // C (1080) nothing new; frame D (1096) shows 6.
  ws.deliver(line('changed', 2));
  ws.deliver(line('changed', 3));
  ws.deliver(line('changed', 4));
  frames.tick(1048);
  ws.deliver(line('changed', 5));
  frames.tick(1064); // 4 presented at 1064
  assert.equal(ws.commands('frames').length, 0, 'batched');
  frames.tick(1080); // 5 presented at 1080; this frame shows nothing new: sent now
  let sent = ws.commands('frames');
  assert.deepEqual(sent.map((c) => c.frames), [[[4, daemon(1064)], [5, daemon(1080)]]]);
  assert.equal(sent[0].id, undefined, 'no id: no reply asked');

  // Not event lines: a reply, a state snapshot, a synthetic line count nothing.
  ws.deliver({ type: 'pong', id: 99 });
  ws.deliver({ ...HELLO, type: 'state', seq: 50 });
  frames.tick(1096);
  frames.tick(1112);
  assert.equal(ws.commands('frames').length, 1);

  // Steady change: `frameBatch` (3) frames a command, seqs only rising.
  let seq = 6;
  for (let k = 0; k < 7; k += 1) {
    ws.deliver(line('changed', seq++));
    ws.deliver(line('changed', seq++));
    frames.tick(1128 + 16 * k);
  }
  sent = ws.commands('frames');
  assert.deepEqual(sent.slice(1).map((c) => c.frames), [
    [[7, daemon(1144)], [9, daemon(1160)], [11, daemon(1176)]],
    [[13, daemon(1192)], [15, daemon(1208)], [17, daemon(1224)]],
  ]);
  assert.equal(client.framesReported, 8);
  // The rest goes when a frame shows nothing new.
  frames.tick(1240); // 19 presented
  frames.tick(1256);
  assert.deepEqual(ws.commands('frames').at(-1).frames, [[19, daemon(1240)]]);

  // Without a `transitions` filter, a line of a transition the hello did not list is applied: reported.
  const events = [];
  client.on('frames', (e) => events.push(e.frames));
  ws.deliver({ ...line('changed', 30), transition: 'unknown-elsewhere' });
  frames.tick(1272);
  frames.tick(1288);
  assert.equal(events.length, 1);
  assert.deepEqual(events[0], [[30, daemon(1288)]]);

  // Closed: the loop stops, nothing more is sent.
  client.close();
  assert.equal(frames.waiting, 0);
});

test('frames: only lines of the subscribed transitions count', async (t) => {
  const clock = fakeClock(t, 1000);
  const { ws, frames } = await connected(t, { transitions: ['back'] });
  ws.deliver(HELLO);
  await answerClock(ws, clock, { daemon: 7, after: 0 });
  ws.deliver({ ...line('changed', 3), transition: 'home' });
  frames.tick(1016);
  frames.tick(1032);
  assert.equal(ws.commands('frames').length, 0, 'a line not applied (filtered) is not reported');
  ws.deliver(line('changed', 4));
  frames.tick(1048);
  frames.tick(1064);
  frames.tick(1080);
  assert.deepEqual(ws.commands('frames').map((c) => c.frames), [[[4, 7.064]]]);
});

test('frames: off with reportFrames: false, and where there are no animation frames', async (t) => {
  fakeClock(t, 1000);
  const { client, ws, frames } = await connected(t, { reportFrames: false });
  ws.deliver(HELLO);
  ws.deliver(line('began', 1));
  assert.equal(frames.waiting, 0, 'no frame loop');
  frames.tick(1016);
  frames.tick(1032);
  assert.equal(ws.commands('clock').length + ws.commands('frames').length, 0, 'no clock, no frames');
  assert.equal(client.daemonOffset, undefined);

  // Node: no requestAnimationFrame, so the client sends what it always sent.
  assert.equal(typeof globalThis.requestAnimationFrame, 'undefined');
  const plain = new TransitiondClient('ws://fake/stream', { WebSocket: FakeSocket, reconnect: false });
  t.after(() => plain.close());
  const opened = plain.once('open');
  plain.connect();
  await opened;
  FakeSocket.last.deliver(HELLO);
  assert.deepEqual(FakeSocket.last.sent, []);
});
