// The demo kiosk page (clients/demo/index.html, served by the daemon) in
// Debian's headless chromium, driven through the DevTools protocol: a paced
// replay of a back gesture moves the pane by the progress the stream
// carries, screenshots at began, mid-gesture, release and finished (and the
// end of a cancel), and the latency daemon → page handler.
//
// Screenshots go to $WEB_ARTIFACTS (default: a folder in the test's temp
// dir); with WEB_DOCS_SCREENSHOT=1 the mid-gesture one is copied to
// docs/images/kiosk-web.png.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, TMP, startDaemon, freePort, within } from './daemon.mjs';
import { openPage, watchDemoEvents, decodePNG } from './chromium.mjs';

const WIDTH = 1024;
const HEIGHT = 600;
const ARTIFACTS = process.env.WEB_ARTIFACTS || path.join(TMP, 'screenshots');

// One expression, run in one turn of the page's event loop: the pane's
// layout, the frame the page drew last, and the stream as it stood then.
const MEASURE = `(() => {
  const stage = document.getElementById('stage');
  const top = document.getElementById('top');
  const rect = top.getBoundingClientRect();
  const drawn = window.demo.drawn.back || null;
  const events = window.demo.events.filter((e) => e.transition === 'back');
  let i = events.length - 1;
  while (i >= 0 && drawn && events[i].at > drawn.calledAt) i -= 1;
  const pick = (e) => e ? { type: e.type, progress: e.progress, velocity: e.velocity, time: e.time, at: e.at, seq: e.seq } : null;
  return {
    now: performance.now(), left: rect.left, top: rect.top, width: stage.clientWidth,
    drawn, stream: pick(events[i]), previous: pick(events[i - 1]), newest: pick(events[events.length - 1]),
    dim: getComputedStyle(stage).getPropertyValue('--back-dim'), slide: window.demo.slide || null,
    status: window.demo.status,
  };
})()`;

const SETTLE = 'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))';

/** The left edge of the top (light) pane in a screenshot, on a row above the text. */
function paneEdge(png) {
  const y = 8;
  for (let x = 0; x < png.width; x += 1) {
    const [r, g, b] = png.pixel(x, y);
    if (r > 180 && g > 180 && b > 180) return x;
  }
  return png.width;
}

/**
 * The page clock (performance.now(), ms) → CLOCK_MONOTONIC (ms): the test
 * process reads CLOCK_MONOTONIC (process.hrtime, libuv's monotonic clock)
 * just before and just after asking the page for performance.now(); the page
 * read lies between the two, so page + offset = the midpoint, within half the
 * round trip. The round trip with the smallest time of 30 gives the offset.
 */
async function pageClockToMonotonic(cdp) {
  let best = { rtt: Infinity };
  for (let k = 0; k < 30; k += 1) {
    const t0 = process.hrtime.bigint();
    const page = await cdp.evaluate('performance.now()');
    const t1 = process.hrtime.bigint();
    const rtt = Number(t1 - t0) / 1e6;
    if (rtt < best.rtt) best = { rtt, offset: Number(t0) / 1e6 + rtt / 2 - page };
  }
  return { offset: best.offset, uncertainty: best.rtt / 2 };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

test('the demo page in headless chromium draws the stream: back finish, back cancel, latency', async (t) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const port = await freePort();
  const daemon = await startDaemon({ recordings: ['back-drag-finish.events'], port, speed: 1, waitClients: 1, extra: ['--stamp-sent'] });
  t.after(() => daemon.kill());
  const cdp = await openPage(t, { width: WIDTH, height: HEIGHT });
  // The page's events, pushed to the test as they arrive.
  const { seen, arrival } = await watchDemoEvents(cdp, `{ type: d.type, transition: d.transition, seq: d.seq, progress: d.progress }`);

  const report = [];
  async function capture(label, { settle = false, exact } = {}) {
    if (settle) await cdp.evaluate(SETTLE);
    const before = await cdp.evaluate(MEASURE);
    const shot = await cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true });
    const after = await cdp.evaluate(MEASURE);
    const png = Buffer.from(shot.data, 'base64');
    const file = path.join(ARTIFACTS, `${label}.png`);
    writeFileSync(file, png);
    const image = decodePNG(png);
    assert.equal(image.width, WIDTH);
    const edge = paneEdge(image);

    for (const m of [before, after]) {
      assert.ok(m.drawn, `${label}: the page has drawn`);
      // The layout is the progress drawn.
      assert.ok(Math.abs(m.left - m.drawn.progress * m.width) <= 1,
        `${label}: pane at ${m.left}px, drawn progress ${m.drawn.progress} × ${m.width}`);
      assert.equal(m.top, 0);
      // The progress drawn is the stream's when the frame was drawn, within
      // one frame (1/60 s) of its motion (and a pixel).
      const streamed = m.stream ? m.stream.progress : 0;
      const speeds = [m.stream?.velocity ?? 0, m.previous?.velocity ?? 0];
      if (m.stream && m.previous && m.stream.time > m.previous.time) {
        speeds.push((m.stream.progress - m.previous.progress) / (m.stream.time - m.previous.time));
      }
      const tolerance = Math.max(...speeds.map(Math.abs)) / 60 + 1 / m.width;
      assert.ok(Math.abs(m.drawn.progress - streamed) <= tolerance + 1e-9,
        `${label}: drawn ${m.drawn.progress}, stream ${streamed} (${m.stream?.type}), tolerance ${tolerance}`);
    }
    // The screenshot shows what was drawn between the two measurements.
    const lo = Math.min(before.left, after.left);
    const hi = Math.max(before.left, after.left);
    assert.ok(edge >= Math.floor(lo) - 2 && edge <= Math.ceil(hi) + 2,
      `${label}: screenshot edge at ${edge}px, page drew ${before.left}…${after.left}px`);
    if (exact !== undefined) {
      assert.equal(after.drawn.progress, exact, `${label}: exactly ${exact}`);
      assert.equal(after.left, exact * after.width);
    }
    const at = (m) => `stream ${m.stream?.type ?? '-'} p=${(m.stream?.progress ?? 0).toFixed(4)} drawn p=${m.drawn.progress.toFixed(4)}`
      + ` pane ${m.left.toFixed(1)}px dim ${Number(m.dim).toFixed(3)}`;
    const line = `${label.padEnd(12)} before: ${at(before)} | screenshot: pane edge ${edge}px | after: ${at(after)}`;
    report.push(line);
    return { before, after, edge, file };
  }

  // Back, finishing: the replay starts when the page connects.
  const began = arrival((e) => e.type === 'began', 'began');
  const mid = arrival((e) => e.type === 'changed' && e.progress >= 0.35, 'mid-gesture');
  const ended = arrival((e) => e.type === 'ended', 'ended');
  const finished = arrival((e) => e.type === 'finished', 'finished');
  await cdp.send('Page.navigate', { url: `http://127.0.0.1:${port}/` });
  await began;
  const first = await capture('began');
  assert.deepEqual(first.after.slide, { x: 1, y: 0, edge: 'left' }, 'the slide follows the hello\'s edge');
  await mid;
  const middle = await capture('mid');
  assert.ok(middle.after.left > 0.2 * WIDTH && middle.after.left < 0.9 * WIDTH, 'mid-gesture, part-way');
  assert.ok(Number(middle.after.dim) < 0.5, 'the page underneath is brighter past progress 0.25');
  await ended;
  await capture('ended');
  await finished;
  const last = await capture('finished', { settle: true, exact: 1 });
  assert.equal(last.edge, WIDTH, 'the top pane is gone');

  // Latency daemon → page handler (the daemon's "sent", CLOCK_MONOTONIC).
  const clock = await pageClockToMonotonic(cdp);
  const stamped = await cdp.evaluate('window.demo.events.filter((e) => e.sent !== undefined).map((e) => [e.sent, e.at])');
  await within(10, daemon.exited, 'the replay to end');

  // Back, cancelling, on a second daemon: the pane ends at exactly 0.
  const port2 = await freePort();
  const daemon2 = await startDaemon({ recordings: ['back-drag-cancel.events'], port: port2, speed: 1, waitClients: 1 });
  t.after(() => daemon2.kill());
  const cancelled = arrival((e) => e.type === 'cancelled', 'cancelled');
  const cancelEnded = arrival((e) => e.type === 'ended', 'ended (cancel)');
  await cdp.send('Page.navigate', { url: `http://127.0.0.1:${port2}/` });
  await cancelEnded;
  const release = await capture('cancel-ended');
  assert.ok(release.before.left > 0.1 * WIDTH, `released part-way: ${JSON.stringify(release.before)}`);
  await cancelled;
  const back = await capture('cancelled', { settle: true, exact: 0 });
  assert.equal(back.edge, 0, 'the top pane is back at 0');
  assert.equal(Number(back.after.dim), 1, 'the page underneath is dim again');

  if (process.env.WEB_DOCS_SCREENSHOT === '1') {
    mkdirSync(path.join(ROOT, 'docs/images'), { recursive: true });
    copyFileSync(middle.file, path.join(ROOT, 'docs/images/kiosk-web.png'));
  }

  // Latency: page arrival on CLOCK_MONOTONIC minus the daemon's send stamp.
  assert.ok(stamped.length > 100, `${stamped.length} stamped events`);
  const latencies = stamped.map(([sent, at]) => at + clock.offset - sent / 1e6).sort((a, b) => a - b);
  const p50 = quantile(latencies, 0.5);
  const p99 = quantile(latencies, 0.99);
  // performance.now() is coarsened (100 µs) in a page that is not cross-origin isolated.
  assert.ok(latencies[0] >= -(clock.uncertainty + 0.2), `latency ${latencies[0]} ms < 0: the clock mapping is wrong`);
  assert.ok(p50 < 50, `p50 ${p50} ms`);
  console.log(report.join('\n'));
  console.log(`latency daemon → page handler over ${latencies.length} events: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, `
    + `max ${latencies.at(-1).toFixed(2)} ms (page clock mapped to CLOCK_MONOTONIC within ±${clock.uncertainty.toFixed(3)} ms)`);
  console.log(`screenshots: ${ARTIFACTS}`);
});
