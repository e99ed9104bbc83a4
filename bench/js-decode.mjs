// What the JavaScript client spends on each line of the stream it is
// given: `TransitiondClient`'s own handling of a received line (JSON.parse,
// the transition's state, the `event` and per-type events it dispatches to
// a listener), and JSON.parse alone for comparison, over the lines of a
// real stream (`transitiond replay --fast --json`), in rounds; prints the
// medians in ns per line. No socket: the line is handed to the client as
// its WebSocket would hand it.
//
//     transitiond replay --fast --json RECORDING > stream.ndjson
//     node bench/js-decode.mjs stream.ndjson [ROUNDS]

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { TransitiondClient } from '../clients/js/transitiond.js';

const [path, roundsText] = process.argv.slice(2);
if (!path) {
  console.error('usage: node bench/js-decode.mjs STREAM.ndjson [ROUNDS]');
  process.exit(64);
}
const rounds = Math.max(1, Number(roundsText || 15));
const lines = readFileSync(path, 'utf8').split('\n').filter((line) => line.length > 0);
// Enough passes per round that a round lasts well over the timer's resolution.
const passes = Math.max(1, Math.ceil(200000 / lines.length));

class NoSocket {} // never opened: lines are handed over directly

function clientPass() {
  const client = new TransitiondClient('ws://unused', { WebSocket: NoSocket });
  let seen = 0;
  client.addEventListener('event', () => { seen += 1; });
  const start = performance.now();
  for (let p = 0; p < passes; p++) {
    for (const line of lines) client._receive(line, start);
  }
  return [(performance.now() - start) * 1e6 / (passes * lines.length), seen];
}

function parsePass() {
  let sum = 0;
  const start = performance.now();
  for (let p = 0; p < passes; p++) {
    for (const line of lines) sum += JSON.parse(line).seq || 0;
  }
  return [(performance.now() - start) * 1e6 / (passes * lines.length), sum];
}

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
const client = [];
const parse = [];
let events = 0;
clientPass(); parsePass(); // warm up the JIT
for (let r = 0; r < rounds; r++) {
  const [c, seen] = r % 2 ? clientPass() : [null, 0];
  const [p] = parsePass();
  const [c2, seen2] = r % 2 ? [null, 0] : clientPass();
  client.push(c ?? c2);
  parse.push(p);
  events = Math.max(events, seen, seen2);
}
console.log(`js-decode: ${lines.length} lines × ${passes} passes, ${rounds} alternating rounds, node ${process.version}`);
console.log(`  TransitiondClient, a line received: ${median(client).toFixed(0)} ns (median)`);
console.log(`  JSON.parse alone:                   ${median(parse).toFixed(0)} ns (median)`);
console.log(`  (events dispatched per pass: ${Math.round(events / passes)})`);
