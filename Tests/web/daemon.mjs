// Shared by the web tests: start and stop real transitiond daemons (a paced
// replay served on a Unix socket and on the WebSocket transport), free
// ports, bounded waits. Temp files go to one temp dir per process; every
// daemon started is killed when the process exits.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = path.resolve(ROOT, process.env.TRANSITIOND || '.build/release/transitiond');
export const DEMO_CONFIG = path.join(ROOT, 'config/demo.toml');
export const recording = (name) => path.join(ROOT, 'Recordings', name);

export const TMP = mkdtempSync(path.join(process.env.TMPDIR || tmpdir(), 'transitiond-web-'));
const children = new Set();
process.on('exit', () => {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone
    }
  }
  if (!process.env.KEEP_WEB_TMP) rmSync(TMP, { recursive: true, force: true });
});

/** A TCP port nobody listens on now (the kernel's pick). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves when `condition()` is truthy, polling every `every` ms; rejects after `timeout` s. */
export async function waitUntil(condition, { timeout = 10, every = 20, what = 'condition' } = {}) {
  const deadline = performance.now() + timeout * 1000;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeout} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/** Rejects after `seconds` unless `promise` settles first. */
export function within(seconds, promise, what = 'it') {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${seconds} s waiting for ${what}`)), seconds * 1000);
    }),
  ]);
}

let counter = 0;

/**
 * A `transitiond replay` serving `recordings` on a Unix socket in the temp
 * dir and on the WebSocket transport at 127.0.0.1:`port`; resolves once
 * GET /healthz answers 200.
 */
export async function startDaemon({
  recordings = ['back-drag-finish.events'],
  port,
  config = DEMO_CONFIG,
  speed = 1,
  waitClients = 1,
  hold = false,
  extra = [],
} = {}) {
  if (!existsSync(BIN)) throw new Error(`no daemon binary at ${BIN} (build it, or set TRANSITIOND)`);
  port = port ?? (await freePort());
  counter += 1;
  const socket = path.join(TMP, `d${counter}.sock`);
  const args = [
    'replay', '--socket', socket, '--websocket', `127.0.0.1:${port}`,
    '--config', config, '--speed', String(speed), '--wait-clients', String(waitClients),
    ...(hold ? ['--hold'] : []), ...extra, ...recordings.map(recording),
  ];
  const child = spawn(BIN, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.on('data', (d) => { stdout += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => {
    children.delete(child);
    resolve({ code, signal });
  }));
  let exit;
  exited.then((e) => { exit = e; });
  const daemon = {
    child, port, socket, args, exited,
    url: `ws://127.0.0.1:${port}/stream`,
    http: `http://127.0.0.1:${port}`,
    get stderr() { return stderr; },
    get stdout() { return stdout; },
    get exit() { return exit; },
    kill(signal = 'SIGTERM') {
      if (!exit) child.kill(signal);
      return exited;
    },
  };
  await waitUntil(async () => {
    if (exit) throw new Error(`transitiond exited (${JSON.stringify(exit)}) before serving: ${args.join(' ')}\n${stderr}`);
    try {
      const response = await fetch(`${daemon.http}/healthz`);
      await response.arrayBuffer();
      return response.status === 200;
    } catch {
      return false;
    }
  }, { timeout: 15, what: `GET /healthz on port ${port}\n${stderr}` });
  return daemon;
}
