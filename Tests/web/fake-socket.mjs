// The WebSocket the JS client's unit tests drive instead of a daemon's.

/** A WebSocket the test drives: `deliver(obj)` is a message from the daemon; `sent` what the client sent. */
export class FakeSocket {
  static last;
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    FakeSocket.last = this;
    queueMicrotask(() => { this.readyState = 1; this.onopen?.(); });
  }
  send(text) { this.sent.push(text); }
  close() { this.readyState = 3; }
  deliver(message) { this.onmessage?.({ data: JSON.stringify(message) }); }
  /** The commands sent with this `cmd`, parsed. */
  commands(cmd) { return this.sent.map((x) => JSON.parse(x)).filter((c) => c.cmd === cmd); }
  /** The daemon answers the last command sent with `ok`. */
  ack() {
    const command = JSON.parse(this.sent.at(-1));
    this.deliver({ type: 'ok', cmd: command.cmd, id: command.id });
  }
}
