// The JS client's snap points (clients/js/transitiond.js): `snap_points`
// and `rest` from hello/state, `ended`'s `snap` decision with its target and
// index, where a transition rests after `finished`, and how `run` encodes
// its target. The unit tests feed a fake WebSocket; the last test runs the
// same against a real daemon with Recordings/snap/carousel.toml.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { TransitiondClient, CommandError } from '../../clients/js/transitiond.js';
import { FakeSocket } from './fake-socket.mjs';
import { ROOT, startDaemon, within } from './daemon.mjs';

async function connected() {
  const client = new TransitiondClient('ws://fake/stream', { WebSocket: FakeSocket, reconnect: false });
  const opened = client.once('open');
  client.connect();
  await opened;
  return { client, ws: FakeSocket.last };
}

const HELLO = {
  type: 'hello', protocol: 1, version: 'test',
  transitions: [
    { name: 'back', gesture: 'edge-pan', fingers: 1, edge: 'left' },
    { name: 'carousel', gesture: 'swipe', fingers: 1, direction: 'left', snap_points: [0, 0.5, 1], rest: 0 },
  ],
  active: [], seq: 0,
};

const event = (type, transition, seq, time, progress, extra = {}) => ({
  type, transition, seq, time, progress, velocity: 0, values: { offset: progress * 2 }, ...extra,
});

test('snap points: rest from hello, ended snap with target and index, rest after finished', async () => {
  const { client, ws } = await connected();
  ws.deliver(HELLO);
  const carousel = client.state('carousel');
  assert.deepEqual([carousel.snapPoints, carousel.rest, carousel.restIndex, carousel.progress], [[0, 0.5, 1], 0, 0, 0]);
  // A transition without snap points has none of the new fields.
  const back = client.state('back');
  for (const key of ['snapPoints', 'rest', 'restIndex', 'targetIndex']) assert.ok(!(key in back), `back has no ${key}`);

  ws.deliver(event('began', 'carousel', 1, 1.0, 0.02));
  ws.deliver(event('changed', 'carousel', 2, 1.1, 0.31, { velocity: 0.2 }));
  ws.deliver(event('ended', 'carousel', 3, 1.2, 0.33, { decision: 'snap', reason: 'released', target: 0.5, index: 1 }));
  let s = client.state('carousel');
  assert.deepEqual([s.phase, s.decision, s.reason, s.target, s.targetIndex, s.rest], ['animating', 'snap', 'released', 0.5, 1, 0]);
  ws.deliver(event('animating', 'carousel', 4, 1.25, 0.42, { target: 0.5 }));
  assert.equal(client.state('carousel').target, 0.5);
  ws.deliver(event('finished', 'carousel', 5, 1.4, 0.5));
  s = client.state('carousel');
  assert.deepEqual([s.phase, s.rest, s.restIndex, s.target, s.targetIndex, s.finished, s.cancelled],
    ['idle', 0.5, 1, undefined, undefined, 1, 0]);
  assert.deepEqual(s.restingValues, { offset: 1 }, 'the values at the point it rests at');
  assert.equal(client.progressAt('carousel', performance.now() + 60_000), 0.5, 'idle: exactly at rest');

  // Back to s0 is `finished` too (at 0): it rests at 0 again.
  ws.deliver(event('began', 'carousel', 6, 2.0, 0.48));
  ws.deliver(event('ended', 'carousel', 7, 2.1, 0.4, { decision: 'snap', reason: 'released', target: 0, index: 0 }));
  ws.deliver(event('finished', 'carousel', 8, 2.3, 0));
  s = client.state('carousel');
  assert.deepEqual([s.rest, s.restIndex, s.finished], [0, 0, 2]);

  // A later snapshot (a reconnect's hello, a `state` reply) says where it rests.
  ws.deliver({ ...HELLO, transitions: [HELLO.transitions[0], { ...HELLO.transitions[1], rest: 1 }], seq: 8 });
  s = client.state('carousel');
  assert.deepEqual([s.rest, s.restIndex, s.progress, s.finished], [1, 2, 1, 2]);
  assert.equal(s.restingValues, undefined, 'values seen at another rest are dropped');
  // One animating in the snapshot: decision snap, its target's index.
  ws.deliver({ ...HELLO, type: 'state', transitions: [HELLO.transitions[0], { ...HELLO.transitions[1], rest: 1 }],
    active: [{ transition: 'carousel', phase: 'animating', progress: 0.8, values: { offset: 1.6 }, target: 0.5 }] });
  s = client.state('carousel');
  assert.deepEqual([s.phase, s.decision, s.target, s.targetIndex], ['animating', 'snap', 0.5, 1]);
});

test('old behaviour for transitions without snap points: finish/cancel targets, synthetic cancel at 0', async () => {
  const { client, ws } = await connected();
  ws.deliver(HELLO);
  ws.deliver({ ...event('began', 'back', 1, 1.0, 0.1), values: { dim: 0.8 } });
  ws.deliver({ ...event('ended', 'back', 2, 1.1, 0.3), values: { dim: 0.4 }, decision: 'cancel', reason: 'released' });
  assert.deepEqual([client.state('back').target, client.state('back').decision], [0, 'cancel']);
  ws.deliver({ ...event('cancelled', 'back', 3, 1.3, 0), values: { dim: 1 } });
  assert.deepEqual(client.state('back').restingValues, { dim: 1 });
  ws.deliver({ ...event('began', 'back', 4, 2.0, 0.1), values: { dim: 0.8 } });
  ws.deliver({ ...event('ended', 'back', 5, 2.1, 0.6), values: { dim: 0 }, decision: 'finish', reason: 'released' });
  assert.equal(client.state('back').target, 1);
  // Both in flight when the connection drops: back goes to 0, the carousel to its rest.
  ws.deliver(event('began', 'carousel', 6, 2.2, 0.1));
  const synthetic = [];
  client.on('cancelled', (e) => synthetic.push(e));
  ws.onclose({ code: 1006, reason: '', wasClean: false });
  const byName = Object.fromEntries(synthetic.map((e) => [e.transition, e]));
  assert.deepEqual([byName.back.progress, byName.back.values, byName.back.synthetic], [0, { dim: 1 }, true]);
  assert.deepEqual([byName.carousel.progress, byName.carousel.synthetic], [0, true]);
  assert.equal(client.state('back').progress, 0);
});

test('a synthetic cancel puts a snap transition back at its rest', async () => {
  const { client, ws } = await connected();
  ws.deliver({ ...HELLO, transitions: [HELLO.transitions[0], { ...HELLO.transitions[1], rest: 0.5 }] });
  ws.deliver(event('began', 'carousel', 1, 1.0, 0.55));
  const cancelled = client.once('cancelled');
  ws.onclose({ code: 1006, reason: '', wasClean: false });
  const e = await cancelled;
  assert.deepEqual([e.progress, e.synthetic], [0.5, true]);
  const s = client.state('carousel');
  assert.deepEqual([s.phase, s.progress, s.rest, s.restIndex], ['idle', 0.5, 0.5, 1]);
});

test('run encodes finish/cancel, a point and {index}; anything else is refused before sending', async () => {
  const { client, ws } = await connected();
  ws.deliver(HELLO);
  const sent = () => ws.sent.at(-1);
  let reply = client.run('back', 'finish');
  assert.equal(sent(), '{"cmd":"run","transition":"back","to":"finish","id":1}');
  ws.ack();
  assert.equal((await reply).type, 'ok');
  reply = client.run('back', 'cancel');
  assert.equal(sent(), '{"cmd":"run","transition":"back","to":"cancel","id":2}');
  ws.ack();
  await reply;
  reply = client.run('carousel', 0.5);
  assert.equal(sent(), '{"cmd":"run","transition":"carousel","to":0.5,"id":3}');
  ws.ack();
  await reply;
  reply = client.run('carousel', { index: 2 }, { id: 'next' });
  assert.equal(sent(), '{"cmd":"run","transition":"carousel","index":2,"id":"next"}');
  ws.ack();
  await reply;
  reply = client.run('carousel');
  assert.equal(sent(), '{"cmd":"run","transition":"carousel","to":"finish","id":4}', 'the default is finish');
  ws.ack();
  await reply;
  // The same bytes as send() with the same command.
  reply = client.send({ cmd: 'run', transition: 'carousel', index: 1 });
  assert.equal(sent(), '{"cmd":"run","transition":"carousel","index":1,"id":5}');
  ws.ack();
  await reply;
  const count = ws.sent.length;
  for (const bad of ['snap', NaN, Infinity, { index: -1 }, { index: 1.5 }, {}, null]) {
    await assert.rejects(client.run('carousel', bad), TypeError, `refused: ${String(bad)}`);
  }
  assert.equal(ws.sent.length, count, 'nothing sent for a bad target');
  // The daemon's refusal is a CommandError, as for send().
  reply = client.run('carousel', 0.3);
  const id = JSON.parse(sent()).id;
  ws.deliver({ type: 'error', code: 'bad-field', message: 'not a snap point', cmd: 'run', id });
  await assert.rejects(reply, (error) => error instanceof CommandError && error.code === 'bad-field');
});

test('a real daemon: run {index} pages the carousel, ended says snap/target/index, rest survives a reconnect', async (t) => {
  const config = path.join(ROOT, 'Recordings/snap/carousel.toml');
  // A recording that leaves the carousel alone (three fingers, not one; a
  // one-finger drag right would pull it past its first page, rubber-banded);
  // --hold keeps serving after it.
  const daemon = await startDaemon({ config, recordings: ['swipe-up-3-fingers.events'], waitClients: 0, hold: true });
  const client = new TransitiondClient(daemon.url, { reconnect: false });
  t.after(() => { client.close(); return daemon.kill(); });
  const hello = await within(10, client.connect().once('hello'), 'hello');
  const info = hello.transitions.find((x) => x.name === 'carousel');
  assert.deepEqual([info.snap_points, info.rest], [[0, 0.5, 1], 0]);
  assert.deepEqual([client.state('carousel').rest, client.state('carousel').restIndex], [0, 0]);

  const ended = client.once('ended', (e) => e.transition === 'carousel');
  const finished = client.once('finished', (e) => e.transition === 'carousel');
  assert.equal((await client.run('carousel', { index: 1 })).type, 'ok');
  const end = await within(10, ended, 'ended');
  assert.deepEqual([end.decision, end.reason, end.target, end.index], ['snap', 'command', 0.5, 1]);
  const done = await within(10, finished, 'finished');
  assert.equal(done.progress, 0.5);
  assert.deepEqual([client.state('carousel').rest, client.state('carousel').restIndex], [0.5, 1]);

  // To a point by number, then a snapshot.
  const finished2 = client.once('finished', (e) => e.transition === 'carousel');
  await client.run('carousel', 1);
  assert.equal((await within(10, finished2, 'finished at 1')).progress, 1);
  const state = await client.send({ cmd: 'state' });
  assert.equal(state.transitions.find((x) => x.name === 'carousel').rest, 1);
  assert.deepEqual([client.state('carousel').rest, client.state('carousel').restIndex], [1, 2]);

  // A second client connecting now is told where it rests.
  const other = new TransitiondClient(daemon.url, { reconnect: false });
  t.after(() => other.close());
  await within(10, other.connect().once('hello'), 'hello (second client)');
  assert.deepEqual([other.state('carousel').rest, other.state('carousel').restIndex, other.progressAt('carousel')], [1, 2, 1]);
});
