// Touch to frame in a real browser: the demo page (clients/demo/index.html)
// in headless chromium, served by a paced replay of a back gesture at real
// speed; the JS client agrees clocks with the daemon and reports the frames
// it presents by itself; afterwards the daemon's /metrics has a
// touch-to-frame sample for every frame that showed a change, with
// plausible values. The same page made slow (`?busy=50`: every frame
// busy-waits 50 ms) shows the median rise by at least 30 ms: the number
// measures the page, not the daemon.
//
// The replay waits for two clients: the page, then — once the page has its
// clock estimate, so no frame goes unreported for want of one — a WebSocket
// of the test's own, which starts it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, freePort, waitUntil, within } from './daemon.mjs';
import { openPage, watchDemoEvents } from './chromium.mjs';

const WIDTH = 800;
const HEIGHT = 480;
const FAMILY = 'transitiond_touch_to_frame_seconds';

/** The websocket transport's touch-to-frame histogram in a /metrics text: {buckets: [[le, cumulative]…], sum, count}. */
export function touchToFrame(text, transport = 'websocket') {
  const buckets = [];
  let sum = 0;
  let count = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(FAMILY) || !line.includes(`transport="${transport}"`)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${FAMILY}_bucket`)) {
      const le = /le="([^"]+)"/.exec(line)[1];
      buckets.push([le === '+Inf' ? Infinity : Number(le), value]);
    } else if (line.startsWith(`${FAMILY}_sum`)) {
      sum = value;
    } else if (line.startsWith(`${FAMILY}_count`)) {
      count = value;
    }
  }
  buckets.sort((a, b) => a[0] - b[0]);
  return { buckets, sum, count };
}

/**
 * The q-quantile of a histogram as Prometheus's histogram_quantile
 * estimates it: the bucket the rank q × count falls in, linearly between
 * its bounds (the first bucket's lower bound 0; in the +Inf bucket, the
 * largest finite bound).
 */
export function histogramQuantile(q, { buckets }) {
  const total = buckets.length ? buckets[buckets.length - 1][1] : 0;
  if (!total) return NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [le, cumulative] of buckets) {
    if (cumulative >= rank) {
      if (le === Infinity) return lower;
      return lower + (le - lower) * ((rank - below) / (cumulative - below || 1));
    }
    lower = le;
    below = cumulative;
  }
  return lower;
}

const ms = (seconds) => `${(seconds * 1000).toFixed(1)} ms`;

/** One run: a fresh daemon and browser, the page at `query`; resolves with what the page and /metrics saw. */
async function run(t, query) {
  const port = await freePort();
  const daemon = await startDaemon({ recordings: ['back-drag-finish.events'], port, speed: 1, waitClients: 2, hold: true });
  t.after(() => daemon.kill());
  const cdp = await openPage(t, { width: WIDTH, height: HEIGHT });
  const { arrival } = await watchDemoEvents(cdp, '{ type: d.type, transition: d.transition, seq: d.seq }');
  const began = arrival((e) => e.type === 'began', 'began', 30);
  const finished = arrival((e) => e.type === 'finished' && e.transition === 'back', 'finished', 30);
  await cdp.send('Page.navigate', { url: `http://127.0.0.1:${port}/${query}` });

  // The page knows the daemon's clock (its first `clock` exchange is back)…
  const estimate = await waitUntil(() => cdp.evaluate('window.demo && window.demo.clock ? window.demo.clock : null'),
    { timeout: 20, what: 'the page\'s clock estimate (demo.clock)' });
  // …and the replay starts with the second client.
  const starter = new WebSocket(daemon.url);
  t.after(() => starter.close());
  await within(10, new Promise((resolve, reject) => {
    starter.onopen = resolve;
    starter.onerror = () => reject(new Error('the starter WebSocket failed'));
  }), 'the starter WebSocket');
  await began;
  await finished;

  // The page has reported the frame that showed its newest line.
  const page = await waitUntil(async () => {
    const s = await cdp.evaluate(`({ changed: demo.frames.changed, total: demo.frames.total, newestSeq: demo.frames.newestSeq,
      reported: demo.client.framesReported, lastReportedSeq: demo.lastReportedSeq,
      offset: demo.client.daemonOffset, uncertainty: demo.client.daemonOffsetUncertainty })`);
    return s.newestSeq > 0 && s.lastReportedSeq === s.newestSeq ? s : null;
  }, { timeout: 10, what: 'the page to report the frame of its newest line' });

  // The daemon has joined them (the `frames` commands are read before a
  // later scrape is answered, but allow for the loop's turn).
  let histogram;
  await waitUntil(async () => {
    const response = await fetch(`${daemon.http}/metrics`);
    histogram = touchToFrame(await response.text());
    return histogram.count >= page.changed;
  }, { timeout: 5, what: `touch-to-frame samples for the ${page.changed} frames that showed a change` }).catch((error) => {
    throw new Error(`${error.message}: /metrics has ${histogram?.count} (page: ${JSON.stringify(page)})`);
  });
  const figures = {
    query: query || '(none)',
    p50: histogramQuantile(0.5, histogram),
    p95: histogramQuantile(0.95, histogram),
    mean: histogram.sum / histogram.count,
    count: histogram.count,
    changed: page.changed,
    frames: page.total,
    reported: page.reported,
    uncertainty: page.uncertainty ?? estimate.uncertainty,
  };
  console.log(`touch to frame ${figures.query}: p50 ${ms(figures.p50)}, p95 ${ms(figures.p95)} (histogram_quantile over`
    + ` the buckets), mean ${ms(figures.mean)}; ${figures.count} samples, ${figures.changed} frames showed a change`
    + ` of ${figures.frames}, ${figures.reported} pairs reported; clock estimate ±${ms(figures.uncertainty)}`);
  return figures;
}

test('touch to frame: the demo page reports its frames; a slow page shows a higher median', async (t) => {
  const fast = await run(t, '');
  assert.ok(fast.changed > 20, `${fast.changed} frames showed a change`);
  assert.ok(fast.count >= fast.changed, `${fast.count} samples for ${fast.changed} frames that showed a change`);
  assert.ok(fast.p50 > 0 && fast.p50 <= 0.2, `median ${ms(fast.p50)}: not within 0…200 ms`);

  const slow = await run(t, '?busy=50');
  assert.ok(slow.count >= slow.changed, `busy: ${slow.count} samples for ${slow.changed} frames that showed a change`);
  assert.ok(slow.p50 - fast.p50 >= 0.030,
    `busy=50 median ${ms(slow.p50)} vs ${ms(fast.p50)}: it should rise by at least 30 ms`);
  console.log(`touch to frame: the median rose by ${ms(slow.p50 - fast.p50)} with ?busy=50 (mean by ${ms(slow.mean - fast.mean)})`);
});
