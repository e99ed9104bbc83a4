// The demo page's snap-point widgets in headless chromium: the 3-page
// carousel (Recordings/snap/carousel.toml) replayed with the recording that
// pages it once (Recordings/snap/carousel-page-left.events) ends on its
// second page — rest 0.5, page index 1 — in the DOM, in the layout and in a
// screenshot; its "next" button then `run`s it to the third page.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, TMP, startDaemon, freePort, within, waitUntil } from './daemon.mjs';
import { openPage, watchDemoEvents, decodePNG } from './chromium.mjs';

const WIDTH = 1024;
const HEIGHT = 600;
const ARTIFACTS = process.env.WEB_ARTIFACTS || path.join(TMP, 'screenshots');
const CONFIG = path.join(ROOT, 'Recordings/snap/carousel.toml');
const RECORDING = 'snap/carousel-page-left.events';
const missing = !existsSync(path.join(ROOT, 'Recordings', RECORDING));

// The carousel as the page shows it, read in one turn of its event loop.
const CAROUSEL = `(() => {
  const root = document.querySelector('.snap-carousel[data-transition="carousel"]');
  if (!root) return null;
  const strip = root.querySelector('.snap-strip').getBoundingClientRect();
  const dots = [...root.querySelectorAll('.snap-dot')].map((d) => d.hasAttribute('data-current'));
  return {
    rest: root.dataset.rest, page: root.dataset.page, pages: root.dataset.pages, phase: root.dataset.phase,
    progress: Number(root.dataset.progress), stripLeft: strip.left, width: root.clientWidth, dots,
    prevDisabled: root.querySelector('.snap-prev').disabled, nextDisabled: root.querySelector('.snap-next').disabled,
    snap: window.demo.snap.carousel || null,
  };
})()`;
const SETTLE = 'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))';

test('the demo page shows the carousel on its second page after the recording that pages it once', {
  skip: missing && `Recordings/${RECORDING} is missing (it comes with the snap recordings)`,
}, async (t) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const port = await freePort();
  const daemon = await startDaemon({ config: CONFIG, recordings: [RECORDING], port, speed: 1, waitClients: 1, hold: true });
  t.after(() => daemon.kill());
  const cdp = await openPage(t, { width: WIDTH, height: HEIGHT });
  // The page's events, pushed to the test as they arrive.
  const { seen, arrival } = await watchDemoEvents(cdp, `{ type: d.type, transition: d.transition, progress: d.progress, decision: d.decision,
    target: d.target, index: d.index, snap_points: (d.transitions || []).map((x) => x.snap_points) }`);

  const hello = arrival((e) => e.type === 'hello', 'hello');
  const ended = arrival((e) => e.type === 'ended' && e.transition === 'carousel', 'the carousel\'s ended');
  const finished = arrival((e) => e.type === 'finished' && e.transition === 'carousel', 'the carousel\'s finished');
  await cdp.send('Page.navigate', { url: `http://127.0.0.1:${port}/` });
  await hello;

  // At rest on the first page before the replay moves it.
  const start = await waitUntil(async () => {
    const c = await cdp.evaluate(CAROUSEL);
    return c && c.rest !== undefined && c;
  }, { timeout: 10, what: 'the carousel on the page' });
  assert.equal(start.pages, '3');

  // The replay ends when the carousel settles: wait for its finished.
  const end = await ended;
  assert.deepEqual([end.decision, end.target, end.index], ['snap', 0.5, 1], `ended: ${JSON.stringify(end)}`);
  const done = await finished;
  assert.equal(done.progress, 0.5);
  const shown = await waitUntil(async () => {
    const c = await cdp.evaluate(CAROUSEL);
    return c && c.phase === 'idle' && c.rest === '0.5' && c;
  }, { timeout: 10, what: 'the carousel at rest 0.5' });
  await cdp.evaluate(SETTLE);
  const c = await cdp.evaluate(CAROUSEL);
  assert.equal(c.rest, '0.5', 'data-rest');
  assert.equal(c.page, '1', 'data-page: the second page');
  assert.equal(c.progress, 0.5);
  assert.deepEqual(c.dots, [false, true, false], 'the second dot is current');
  assert.deepEqual([c.prevDisabled, c.nextDisabled], [false, false]);
  assert.ok(Math.abs(c.stripLeft + c.width) <= 0.5, `the strip is one page to the left: ${c.stripLeft} vs ${-c.width}`);
  assert.deepEqual([c.snap.kind, c.snap.rest, c.snap.page], ['carousel', 0.5, 1]);
  assert.ok(shown);

  // The screenshot shows the second page (green) across the screen.
  const shot = await cdp.send('Page.captureScreenshot', { format: 'png' });
  const png = Buffer.from(shot.data, 'base64');
  writeFileSync(path.join(ARTIFACTS, 'carousel-page-2.png'), png);
  const image = decodePNG(png);
  for (const x of [8, WIDTH / 2, WIDTH - 8]) {
    const [r, g, b] = image.pixel(x, 8);
    assert.ok(g > 120 && r < 90 && b < 110, `pixel (${x}, 8) is the second page's green: ${[r, g, b]}`);
  }

  // "next" runs it to the third page ({index: 2}).
  const next = arrival((e) => e.type === 'finished' && e.transition === 'carousel', 'finished after next');
  const nextEnded = arrival((e) => e.type === 'ended' && e.transition === 'carousel', 'ended after next');
  await cdp.evaluate(`document.querySelector('.snap-carousel .snap-next').click()`);
  const e2 = await nextEnded;
  assert.deepEqual([e2.decision, e2.target, e2.index], ['snap', 1, 2]);
  await next;
  const third = await waitUntil(async () => {
    const x = await cdp.evaluate(CAROUSEL);
    return x && x.phase === 'idle' && x.page === '2' && x;
  }, { timeout: 10, what: 'the carousel on its third page' });
  assert.equal(third.rest, '1');
  assert.equal(third.nextDisabled, true);
  console.log(`carousel: ${seen.filter((e) => e.transition === 'carousel').length} events; rest 0.5 page 1, then 1 page 2`);
});

// The drawer (Recordings/snap/drawer.toml) needs no recording: its stop
// marks `run` it to their snap point.
const DRAWER = `(() => {
  const root = document.querySelector('.snap-drawer[data-transition="drawer"]');
  if (!root) return null;
  const marks = [...document.querySelectorAll('.snap-stop')];
  return {
    rest: root.dataset.rest, page: root.dataset.page, phase: root.dataset.phase, edge: root.dataset.edge,
    progress: Number(root.dataset.progress), width: root.getBoundingClientRect().width, screen: window.innerWidth,
    marks: marks.map((m) => [m.textContent, m.getBoundingClientRect().left, m.hasAttribute('data-current')]),
    carousels: document.querySelectorAll('.snap-carousel').length,
  };
})()`;

test('the demo page draws the drawer at its progress with a mark at each snap point; a mark runs it there', async (t) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const config = path.join(ROOT, 'Recordings/snap/drawer.toml');
  // A recording that leaves the drawer alone (three fingers); --hold keeps serving.
  const daemon = await startDaemon({ config, recordings: ['swipe-up-3-fingers.events'], waitClients: 0, hold: true });
  t.after(() => daemon.kill());
  const cdp = await openPage(t, { width: WIDTH, height: HEIGHT });
  await cdp.send('Page.navigate', { url: `${daemon.http}/` });
  const closed = await waitUntil(async () => {
    const d = await cdp.evaluate(DRAWER).catch(() => null);
    return d && d.rest === '0' && d;
  }, { timeout: 15, what: 'the drawer on the page, at rest 0' });
  assert.deepEqual([closed.edge, closed.width, closed.carousels], ['left', 0, 0]);
  const size = 0.8 * WIDTH;
  assert.deepEqual(closed.marks.map(([text]) => text), ['0', '0.5', '1']);
  closed.marks.forEach(([text, left]) => {
    assert.ok(Math.abs(left - Number(text) * size) <= 0.5, `mark ${text} at ${left}px, expected ${Number(text) * size}`);
  });

  await cdp.evaluate(`document.querySelectorAll('.snap-stop')[1].click()`);
  const half = await waitUntil(async () => {
    const d = await cdp.evaluate(DRAWER);
    return d.phase === 'idle' && d.rest === '0.5' && d;
  }, { timeout: 10, what: 'the drawer half open' });
  await cdp.evaluate(SETTLE);
  const d = await cdp.evaluate(DRAWER);
  assert.equal(d.page, '1');
  assert.equal(d.progress, 0.5);
  assert.ok(Math.abs(d.width - size / 2) <= 0.5, `drawer ${d.width}px wide, expected ${size / 2}`);
  assert.deepEqual(d.marks.map((m) => m[2]), [false, true, false], 'the half-open mark is current');
  assert.ok(half);
  const shot = await cdp.send('Page.captureScreenshot', { format: 'png' });
  writeFileSync(path.join(ARTIFACTS, 'drawer-half-open.png'), Buffer.from(shot.data, 'base64'));
});
