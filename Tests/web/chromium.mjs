// Debian's chromium, headless, driven through the DevTools protocol over its
// WebSocket (Node's WebSocket): launch, a CDP session on a page, and a
// minimal PNG reader for checking screenshots' pixels.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { TMP, waitUntil, within } from './daemon.mjs';

export const CHROMIUM = process.env.CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);

/** Starts headless chromium; resolves with {child, port, kill()}. */
export async function launchChromium({ width = 1024, height = 600 } = {}) {
  if (!CHROMIUM) throw new Error('no chromium (apt-get install chromium)');
  const profile = mkdtempSync(path.join(TMP, 'chromium-'));
  const args = [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
    '--disable-extensions', '--disable-background-networking', '--disable-sync', '--mute-audio',
    '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
    '--disable-backgrounding-occluded-windows', '--hide-scrollbars', '--force-device-scale-factor=1',
    `--window-size=${width},${height}`, `--user-data-dir=${profile}`, '--remote-debugging-port=0',
    'about:blank',
  ];
  const child = spawn(CHROMIUM, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  let exited = false;
  const exit = new Promise((resolve) => child.on('exit', () => { exited = true; resolve(); }));
  process.on('exit', () => { if (!exited) child.kill('SIGKILL'); });
  const activePort = path.join(profile, 'DevToolsActivePort');
  const port = await waitUntil(() => {
    if (exited) throw new Error(`chromium exited: ${stderr}`);
    if (!existsSync(activePort)) return false;
    const [line] = readFileSync(activePort, 'utf8').split('\n');
    return Number(line) || false;
  }, { timeout: 30, what: 'chromium DevToolsActivePort' });
  return {
    child, port,
    get stderr() { return stderr; },
    async kill() {
      if (!exited) child.kill('SIGTERM');
      await within(10, exit, 'chromium exit').catch(() => { child.kill('SIGKILL'); return exit; });
    },
  };
}

/** A DevTools session on the first page target. */
export async function connectPage(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const page = targets.find((x) => x.type === 'page');
  if (!page) throw new Error('no page target');
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await within(10, new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error('CDP connect failed'));
  }), 'the DevTools WebSocket');
  let nextId = 1;
  const pending = new Map();
  const listeners = new Map();
  ws.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.id !== undefined) {
      const p = pending.get(data.id);
      pending.delete(data.id);
      if (!p) return;
      if (data.error) p.reject(new Error(`${p.method}: ${data.error.message}`));
      else p.resolve(data.result);
    } else {
      for (const f of listeners.get(data.method) || []) f(data.params);
    }
  };
  const session = {
    send(method, params = {}) {
      const id = nextId++;
      ws.send(JSON.stringify({ id, method, params }));
      return within(30, new Promise((resolve, reject) => pending.set(id, { resolve, reject, method })), method);
    },
    on(method, f) {
      if (!listeners.has(method)) listeners.set(method, new Set());
      listeners.get(method).add(f);
      return () => listeners.get(method).delete(f);
    },
    /** The value of a JS expression in the page (awaiting promises). */
    async evaluate(expression) {
      const r = await session.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
      if (r.exceptionDetails) throw new Error(`page: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
      return r.result.value;
    },
    close() { ws.close(); },
  };
  return session;
}

/** Decodes an 8-bit RGB/RGBA non-interlaced PNG: {width, height, pixel(x, y) → [r, g, b]}. */
export function decodePNG(buffer) {
  let offset = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    const data = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit non-interlaced PNGs');
      colorType = data[9];
    } else if (type === 'IDAT') {
      idat.push(data);
    }
    offset += 12 + length;
  }
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (!bpp) throw new Error(`PNG colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x += 1) {
      const a = x >= bpp ? out[y * stride + x - bpp] : 0;
      const b = y > 0 ? out[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? out[(y - 1) * stride + x - bpp] : 0;
      let v = line[x];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[y * stride + x] = v & 255;
    }
  }
  return {
    width, height,
    pixel(x, y) {
      const i = y * stride + x * bpp;
      return [out[i], out[i + 1], out[i + 2]];
    },
  };
}

/**
 * A page of a fresh headless Chromium, `width` × `height`, both closed when
 * the test `t` ends.
 */
export async function openPage(t, { width, height }) {
  const browser = await launchChromium({ width, height });
  t.after(() => browser.kill());
  const cdp = await connectPage(browser.port);
  t.after(() => cdp.close());
  await cdp.send('Page.enable');
  await cdp.send('Runtime.enable');
  await cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
  return cdp;
}

/**
 * The demo page's events (`demo-event`), pushed to the test as they arrive,
 * each as the object `fields` (a JavaScript expression of `d`, the event's
 * detail) makes of it: `seen` holds them all, `arrival(predicate, what)`
 * resolves with the first that matches, within a bound.
 */
export async function watchDemoEvents(cdp, fields) {
  await cdp.send('Runtime.addBinding', { name: 'tdNotify' });
  await cdp.send('Page.addScriptToEvaluateOnNewDocument', {
    source: `window.addEventListener('demo-event', (e) => { const d = e.detail; tdNotify(JSON.stringify(${fields})); });`,
  });
  const seen = [];
  const waiters = [];
  cdp.on('Runtime.bindingCalled', (p) => {
    if (p.name !== 'tdNotify') return;
    const e = JSON.parse(p.payload);
    seen.push(e);
    for (const w of [...waiters]) {
      if (w.predicate(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
    }
  });
  const arrival = (predicate, what, seconds = 20) => {
    const promise = within(seconds, new Promise((resolve) => waiters.push({ predicate, resolve })), what);
    promise.catch(() => {}); // awaited later; a failure before then is reported there
    return promise;
  };
  return { seen, arrival };
}
