// The JS client (clients/js/transitiond.js) against real transitiond
// daemons over the WebSocket transport. Run with `node --test` (Node 20
// needs --experimental-websocket; Tests/web/run.sh adds it).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { TransitiondClient, CommandError } from '../../clients/js/transitiond.js';
import { ROOT, TMP, DEMO_CONFIG, startDaemon, freePort, within, waitUntil } from './daemon.mjs';

const FAST_BACKOFF = { initial: 0.05, max: 0.2, factor: 2, jitter: 0.3 };

/** Every event of one transition until its `finished`/`cancelled`, bounded. */
function collectUntilEnd(client, name, seconds = 15) {
  const events = [];
  const done = new Promise((resolve) => {
    const off = client.on('event', (e) => {
      if (e.transition !== name) return;
      events.push(e);
      if (e.type === 'finished' || e.type === 'cancelled') {
        off();
        resolve(events);
      }
    });
  });
  return within(seconds, done, `the end of '${name}'`);
}

test('the daemon serves the page, the module and /healthz over HTTP', async (t) => {
  const daemon = await startDaemon({ waitClients: 5, hold: true });
  t.after(() => daemon.kill());
  const page = await fetch(`${daemon.http}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /^text\/html/);
  assert.ok(await page.text() === readFileSync(path.join(ROOT, 'clients/demo/index.html'), 'utf8'),
    'GET / is clients/demo/index.html (is the binary built from this tree?)');
  const module = await fetch(`${daemon.http}/transitiond.js`);
  assert.equal(module.status, 200);
  assert.match(module.headers.get('content-type'), /^text\/javascript/);
  assert.ok(await module.text() === readFileSync(path.join(ROOT, 'clients/js/transitiond.js'), 'utf8'),
    'GET /transitiond.js is clients/js/transitiond.js (is the binary built from this tree?)');
  const missing = await fetch(`${daemon.http}/nothing-here`);
  await missing.arrayBuffer();
  assert.equal(missing.status, 404);
});

test('hello snapshot is kept; commands get their replies by id', async (t) => {
  // Two clients awaited, one connects: the replay never starts.
  const daemon = await startDaemon({ waitClients: 2, hold: true });
  const client = new TransitiondClient(daemon.url, { reconnect: false });
  t.after(() => { client.close(); return daemon.kill(); });
  const hello = await within(10, client.connect().once('hello'), 'hello');
  assert.equal(hello.protocol, 1);
  assert.equal(client.hello, hello);
  assert.deepEqual(hello.active, []);
  const back = hello.transitions.find((x) => x.name === 'back');
  const home = hello.transitions.find((x) => x.name === 'home');
  assert.deepEqual({ gesture: back.gesture, fingers: back.fingers, edge: back.edge },
    { gesture: 'edge-pan', fingers: 1, edge: 'left' });
  assert.deepEqual({ gesture: home.gesture, fingers: home.fingers, direction: home.direction },
    { gesture: 'swipe', fingers: 3, direction: 'up' });
  assert.deepEqual(client.transitions, ['back', 'home']);
  const state = client.state('back');
  assert.equal(state.phase, 'idle');
  assert.equal(state.edge, 'left');
  assert.equal(client.progressAt('back'), 0);

  const pong = await client.send({ cmd: 'ping', id: 'p-1' });
  assert.deepEqual({ type: pong.type, id: pong.id }, { type: 'pong', id: 'p-1' });
  const auto = await client.send({ cmd: 'ping' });
  assert.equal(auto.type, 'pong');
  assert.equal(typeof auto.id, 'number');
  const snapshot = await client.send({ cmd: 'state' });
  assert.equal(snapshot.type, 'state');
  assert.deepEqual(snapshot.transitions.map((x) => x.name), ['back', 'home']);
  await assert.rejects(client.send({ cmd: 'no-such-command' }),
    (error) => error instanceof CommandError && error.code === 'unknown-command');
  await assert.rejects(client.send({ cmd: 'drive', transition: 'nope', progress: 0.5 }),
    (error) => error instanceof CommandError && error.code === 'unknown-transition');
  // Still open after errors.
  assert.equal((await client.send({ cmd: 'ping' })).type, 'pong');
  assert.ok(client.connected);
});

test('a paced replay streams the life of a transition; progressAt interpolates and ends exact', async (t) => {
  const daemon = await startDaemon({ recordings: ['back-drag-finish.events'], speed: 1 });
  const client = new TransitiondClient(daemon.url, { reconnect: false });
  t.after(() => { client.close(); return daemon.kill(); });
  const all = collectUntilEnd(client, 'back');

  // While in flight: checks of progressAt against the samples it holds.
  const checks = { between: 0, extrapolated: 0, animating: 0 };
  let previous;
  const offChecks = client.on('event', (e) => {
    if (e.transition !== 'back' || e.type === 'finished') return;
    const { delay, maxExtrapolation } = client.options;
    const at = (time) => (client.clockOffset + time + delay) * 1000;
    if (previous && e.time > previous.time && e.type !== 'began') {
      // Exactly between the two newest samples: their mean.
      const mid = client.progressAt('back', at((previous.time + e.time) / 2));
      assert.ok(Math.abs(mid - (previous.progress + e.progress) / 2) < 1e-9,
        `midway ${mid} vs ${previous.progress}…${e.progress}`);
      assert.ok(Math.abs(client.progressAt('back', at(previous.time)) - previous.progress) < 1e-9);
      checks.between += 1;
      // Far past the newest sample: extrapolated at most maxExtrapolation.
      const far = client.progressAt('back', at(e.time + 5));
      const bound = Math.abs(e.velocity) * maxExtrapolation + 1e-9;
      assert.ok(Math.abs(far - e.progress) <= bound, `extrapolated ${far} from ${e.progress} (bound ${bound})`);
      assert.ok(far >= 0 && far <= 1);
      checks.extrapolated += 1;
      if (e.type === 'animating') {
        assert.ok(far <= Math.max(e.progress, e.target) + 1e-9 && far >= Math.min(e.progress, e.target) - 1e-9,
          'never past the target');
        checks.animating += 1;
      }
    }
    previous = e;
  });

  const hello = await within(10, client.connect().once('hello'), 'hello');
  assert.deepEqual(hello.active, []);
  const events = await all;
  offChecks();

  const types = events.map((e) => e.type);
  assert.equal(types[0], 'began');
  assert.equal(types.at(-1), 'finished');
  const ended = types.indexOf('ended');
  assert.ok(ended > 0 && types.slice(1, ended).every((x) => x === 'changed'), 'began → changed* → ended');
  assert.ok(types.slice(ended + 1, -1).every((x) => x === 'animating'), 'ended → animating* → finished');
  assert.equal(events[ended].decision, 'finish');
  assert.equal(events[ended].reason, 'released');
  for (let i = 1; i < events.length; i += 1) {
    assert.ok(events[i].seq > events[i - 1].seq, 'seq rises');
    assert.ok(events[i].time >= events[i - 1].time, 'time never goes back');
  }
  assert.ok(events.every((e) => typeof e.values.dim === 'number'), 'every event carries the dim keyframe');
  assert.ok(checks.between > 20 && checks.animating > 3, JSON.stringify(checks));

  // Paced: the daemon's time advances with the page's clock.
  const first = events[0];
  const last = events.at(-1);
  const streamed = last.time - first.time;
  const arrived = (last.receivedAt - first.receivedAt) / 1000;
  assert.ok(Math.abs(arrived - streamed) < 0.25, `arrivals took ${arrived} s for ${streamed} s of stream`);
  // The clock offset is the minimum lag: no event arrives before it says.
  for (const e of events) assert.ok(e.receivedAt / 1000 - e.time >= client.clockOffset - 1e-9);

  // At the end: exactly 1 whatever the time asked.
  const state = client.state('back');
  assert.equal(state.phase, 'idle');
  assert.equal(state.finished, 1);
  assert.equal(client.progressAt('back'), 1);
  assert.equal(client.progressAt('back', performance.now() + 60_000), 1);
  assert.equal(client.progressAt('back', 0), 1);

  // Without --hold the daemon closes the connection and exits when done.
  const closed = await within(10, client.once('close'), 'close');
  assert.equal(closed.willReconnect, false);
  assert.deepEqual(await within(10, daemon.exited, 'daemon exit'), { code: 0, signal: null });
});

test('a cancel recording ends at exactly 0', async (t) => {
  const daemon = await startDaemon({ recordings: ['back-drag-cancel.events'], speed: 2 });
  const client = new TransitiondClient(daemon.url, { reconnect: false });
  t.after(() => { client.close(); return daemon.kill(); });
  const all = collectUntilEnd(client, 'back');
  client.connect();
  const events = await all;
  const ended = events.find((e) => e.type === 'ended');
  assert.equal(ended.decision, 'cancel');
  const last = events.at(-1);
  assert.equal(last.type, 'cancelled');
  assert.notEqual(last.synthetic, true);
  assert.equal(last.progress, 0);
  assert.equal(client.progressAt('back', performance.now()), 0);
  assert.deepEqual(client.state('back').restingValues, { dim: 1 });
});

test('a daemon killed mid-transition gives a synthetic cancelled; the client reconnects on the same port', async (t) => {
  const port = await freePort();
  let daemon = await startDaemon({ recordings: ['back-drag-finish.events'], port, speed: 1 });
  const client = new TransitiondClient(daemon.url, { backoff: FAST_BACKOFF });
  t.after(() => { client.close(); return daemon.kill(); });
  const opens = [];
  const reconnects = [];
  client.on('open', (o) => opens.push(o));
  client.on('reconnecting', (r) => reconnects.push(r));
  client.connect();

  const midway = await within(10, client.once('changed', (e) => e.transition === 'back' && e.progress > 0.15), 'changed past 0.15');
  assert.equal(client.state('back').phase, 'interacting');
  const cancelled = client.once('cancelled', (e) => e.transition === 'back');
  const closed = client.once('close');
  daemon.child.kill('SIGKILL');
  const synthetic = await within(5, cancelled, 'synthetic cancelled');
  assert.equal(synthetic.synthetic, true);
  assert.equal(synthetic.progress, 0);
  assert.equal(synthetic.velocity, 0);
  assert.ok(synthetic.seq > midway.seq);
  assert.ok(synthetic.time >= midway.time);
  const info = await within(5, closed, 'close');
  assert.equal(info.willReconnect, true);
  const state = client.state('back');
  assert.equal(state.phase, 'idle');
  assert.equal(state.synthetic, true);
  assert.equal(state.cancelled, 1);
  assert.equal(client.progressAt('back', performance.now()), 0);
  assert.equal(client.inFlight.length, 0);

  // Connection refused for a while: the waits grow (capped, jittered).
  await waitUntil(() => reconnects.length >= 3, { timeout: 10, what: '3 reconnect attempts' });
  for (const r of reconnects) assert.ok(r.delay <= FAST_BACKOFF.max && r.delay >= 0);
  assert.ok(reconnects[2].delay > reconnects[0].delay, 'backoff grows');

  // The daemon comes back on the same port: a new hello, and its replay runs.
  daemon = await startDaemon({ recordings: ['back-drag-finish.events'], port, speed: 4 });
  const hello = await within(10, client.once('hello'), 'hello after reconnect');
  assert.deepEqual(hello.active, []);
  assert.equal(opens.length, 2);
  assert.equal(client.connections, 2);
  assert.ok(client.nextDelay() <= FAST_BACKOFF.initial, 'backoff reset after a good connection');
  const finished = await within(10, client.once('finished', (e) => e.transition === 'back'), 'finished');
  assert.equal(finished.progress, 1);
  assert.equal(client.state('back').finished, 1);
});

test('drive over the WebSocket; the driver disconnecting ends it (client-lost) for a watcher; a killed daemon cancels a driven one', async (t) => {
  // A replay that needs no client and leaves `back` alone; --hold keeps serving after it.
  const daemon = await startDaemon({ recordings: ['swipe-up-3-fingers.events'], waitClients: 0, hold: true });
  const driver = new TransitiondClient(daemon.url, { reconnect: false });
  const watcher = new TransitiondClient(daemon.url, { reconnect: false, transitions: ['back'] });
  t.after(() => { driver.close(); watcher.close(); return daemon.kill(); });
  await Promise.all([within(10, driver.connect().once('hello'), 'hello'), within(10, watcher.connect().once('hello'), 'hello')]);
  await within(10, watcher.once('reply', (r) => r.type === 'ok' && r.cmd === 'subscribe'), 'subscribe ok');

  const began = watcher.once('began', (e) => e.transition === 'back');
  assert.equal((await driver.send({ cmd: 'drive', transition: 'back', progress: 0.2 })).type, 'ok');
  await within(5, began, 'began');
  const changed = watcher.once('changed', (e) => e.transition === 'back' && Math.abs(e.progress - 0.4) < 1e-6);
  await driver.send({ cmd: 'drive', transition: 'back', progress: 0.4 });
  const at04 = await within(5, changed, 'changed to 0.4');
  assert.ok(Math.abs(at04.values.dim - 0.2) < 1e-6, 'dim at 0.4 is 0.2');
  assert.equal(watcher.state('back').phase, 'interacting');

  const ended = watcher.once('ended', (e) => e.transition === 'back');
  const cancelled = watcher.once('cancelled', (e) => e.transition === 'back');
  driver.close();
  const end = await within(5, ended, 'ended after the driver left');
  assert.deepEqual([end.decision, end.reason], ['cancel', 'client-lost']);
  const real = await within(5, cancelled, 'cancelled');
  assert.notEqual(real.synthetic, true);
  assert.equal(watcher.progressAt('back'), 0);

  // Driven again by the watcher, then the daemon dies: synthetic cancelled.
  const again = watcher.once('began', (e) => e.transition === 'back');
  await watcher.send({ cmd: 'drive', transition: 'back', progress: 0.3 });
  await within(5, again, 'began again');
  assert.equal(watcher.state('back').phase, 'interacting');
  const synthetic = watcher.once('cancelled', (e) => e.transition === 'back');
  daemon.child.kill('SIGKILL');
  const s = await within(5, synthetic, 'synthetic cancelled');
  assert.equal(s.synthetic, true);
  assert.deepEqual(s.values, { dim: 1 }, 'resting values seen at progress 0');
});

test('the transport closes on a binary message (1003) and on one over 64 KiB (1009)', async (t) => {
  const daemon = await startDaemon({ waitClients: 5, hold: true });
  t.after(() => daemon.kill());
  const closeCode = (send) => within(10, new Promise((resolve, reject) => {
    const ws = new WebSocket(daemon.url);
    ws.onmessage = (m) => { if (JSON.parse(m.data).type === 'hello') send(ws); };
    ws.onclose = (e) => resolve(e.code);
    ws.onerror = () => {};
    setTimeout(() => reject(new Error('no close')), 9000);
  }), 'close');
  assert.equal(await closeCode((ws) => ws.send(new Uint8Array([123, 125]))), 1003);
  assert.equal(await closeCode((ws) => ws.send(JSON.stringify({ cmd: 'ping', pad: 'x'.repeat(70 * 1024) }))), 1009);
});

/** A WebSocket upgrade request: resolves with the HTTP status (101 when accepted). */
function upgradeStatus(port, origin) {
  return within(10, new Promise((resolve, reject) => {
    const headers = {
      Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
    };
    if (origin) headers.Origin = origin;
    const req = request({ host: '127.0.0.1', port, path: '/stream', headers });
    req.on('upgrade', (response, socket) => { socket.destroy(); resolve(response.statusCode); });
    req.on('response', (response) => { response.resume(); resolve(response.statusCode); });
    req.on('error', reject);
    req.end();
  }), `upgrade with Origin ${origin}`);
}

test('allow_origins: a foreign Origin gets 403; none, the page\'s own and a listed one are accepted', async (t) => {
  const config = path.join(TMP, 'origins.toml');
  writeFileSync(config, `${readFileSync(DEMO_CONFIG, 'utf8')}\nallow_origins = ["http://kiosk.example"]\n`);
  const daemon = await startDaemon({ config, waitClients: 10, hold: true });
  t.after(() => daemon.kill());
  assert.equal(await upgradeStatus(daemon.port, 'http://evil.example'), 403);
  assert.equal(await upgradeStatus(daemon.port, undefined), 101);
  assert.equal(await upgradeStatus(daemon.port, `http://127.0.0.1:${daemon.port}`), 101);
  assert.equal(await upgradeStatus(daemon.port, 'http://kiosk.example'), 101);
});

test('backoff: capped, jittered, exponential', () => {
  const client = new TransitiondClient('ws://127.0.0.1:9/stream', { backoff: { initial: 0.5, max: 4, factor: 2, jitter: 0.25 } });
  for (const [attempt, base] of [[0, 0.5], [1, 1], [2, 2], [3, 4], [4, 4], [10, 4]]) {
    client._attempt = attempt;
    for (let k = 0; k < 50; k += 1) {
      const d = client.nextDelay();
      assert.ok(d <= base && d >= base * 0.75, `attempt ${attempt}: ${d} not in [${base * 0.75}, ${base}]`);
    }
  }
});
