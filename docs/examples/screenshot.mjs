// Photographs a kiosk page mid-transition with headless Chromium.
//
//   node --experimental-websocket docs/examples/screenshot.mjs URL FILE.png [NAME [PROGRESS]]
//
// Opens URL (a page that draws with the JavaScript client's bindCSS, such
// as the daemon's demo page) in headless Chromium, waits until the page has
// drawn transition NAME (default back) at PROGRESS or more (default 0.4)
// — its `--NAME-progress` custom property, on any element — and saves a
// PNG. Chromium's own `--screenshot` photographs a page as soon as it has
// loaded, before the stream has said anything, so this drives Chromium
// over its DevTools protocol instead (Node's WebSocket: Node 22, or 20
// with --experimental-websocket). Exits 1 if the page has not got there
// within 30 s. As root, Chromium runs with --no-sandbox.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [url, file, name = 'back', progress = '0.4'] = process.argv.slice(2);
if (!url || !file) {
  console.error('usage: screenshot.mjs URL FILE.png [NAME [PROGRESS]]');
  process.exit(64);
}
if (!globalThis.WebSocket) {
  console.error('screenshot: no WebSocket in this Node: use Node 22, or node --experimental-websocket');
  process.exit(69);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const profile = mkdtempSync(path.join(tmpdir(), 'screenshot-'));
const chromium = spawn(process.env.CHROMIUM || 'chromium', [
  '--headless', '--no-first-run', '--hide-scrollbars', '--window-size=800,480',
  `--user-data-dir=${profile}`, '--remote-debugging-port=0',
  ...(process.getuid() === 0 ? ['--no-sandbox'] : []), 'about:blank',
], { stdio: 'ignore' });
const exited = new Promise((resolve) => chromium.on('exit', resolve));
const done = async (code) => {
  chromium.kill();
  await exited;
  try { rmSync(profile, { recursive: true, force: true }); } catch {}
  process.exit(code);
};
setTimeout(() => {
  console.error(`screenshot: ${name} did not reach ${progress} within 30 s`);
  done(1);
}, 30000);

// Chromium writes its DevTools port to the profile; a page target is there.
const portFile = path.join(profile, 'DevToolsActivePort');
while (!existsSync(portFile) || !readFileSync(portFile, 'utf8').includes('\n')) await sleep(50);
const port = readFileSync(portFile, 'utf8').split('\n')[0];
const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
const devtools = new WebSocket(targets.find((t) => t.type === 'page').webSocketDebuggerUrl);
await new Promise((resolve) => { devtools.onopen = resolve; });
let lastId = 0;
const replies = new Map();
devtools.onmessage = (message) => {
  const reply = JSON.parse(message.data);
  replies.get(reply.id)?.(reply.result);
};
const send = (method, params = {}) => new Promise((resolve) => {
  replies.set(++lastId, resolve);
  devtools.send(JSON.stringify({ id: lastId, method, params }));
});

await send('Emulation.setDeviceMetricsOverride', { width: 800, height: 480, deviceScaleFactor: 1, mobile: false });
await send('Page.navigate', { url });
// In the page: wait for an animation frame that drew the transition far enough.
const drawn = await send('Runtime.evaluate', {
  awaitPromise: true,
  returnByValue: true,
  expression: `new Promise((resolve) => {
    const property = '--${name}-progress';
    const check = () => {
      for (const element of document.querySelectorAll('*')) {
        const value = parseFloat(getComputedStyle(element).getPropertyValue(property));
        if (value >= ${Number(progress)} && value < 1) return resolve(value);
      }
      requestAnimationFrame(check);
    };
    check();
  })`,
});
const shot = await send('Page.captureScreenshot', { format: 'png' });
writeFileSync(file, Buffer.from(shot.data, 'base64'));
console.log(`${file}: ${name} at ${drawn.result.value}`);
await done(0);
