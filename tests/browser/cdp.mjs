// tests/browser/cdp.mjs - a minimal Chrome DevTools Protocol client over
// --remote-debugging-pipe, for the browser tests of the timeline viewer and
// the playground (tests/browser/run.mjs).
//
// Owns: starting Debian's headless Chromium (never downloading a browser),
// one page per test, and the handful of protocol calls the tests use
// (navigate, evaluate, keys, mouse, screenshots, console errors, every
// network request the page makes).  No npm package: node's child_process
// and the pipe transport (messages are JSON separated by NUL bytes, fd 3 to
// the browser, fd 4 from it), so `make check` needs nothing from a registry.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-extensions', '--mute-audio', '--hide-scrollbars',
];

export function findChromium() {
  const cands = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  for (const c of cands) if (c && fs.existsSync(c)) return c;
  return null;
}

export async function launch(opts = {}) {
  const exe = opts.executablePath || findChromium();
  if (!exe) throw new Error('no chromium found (/usr/bin/chromium)');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qsched-chromium-'));
  const args = [...CHROMIUM_FLAGS, '--remote-debugging-pipe', `--user-data-dir=${userDataDir}`,
    `--window-size=${opts.width || 1400},${opts.height || 1000}`, 'about:blank'];
  const proc = spawn(exe, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; if (stderr.length > 20000) stderr = stderr.slice(-10000); });
  const b = new Browser(proc, userDataDir, () => stderr);
  await b.send('Browser.getVersion');
  return b;
}

class Browser {
  constructor(proc, userDataDir, stderr) {
    this.proc = proc;
    this.userDataDir = userDataDir;
    this.stderr = stderr;
    this.id = 0;
    this.waiting = new Map();
    this.listeners = new Set();
    this.buf = Buffer.alloc(0);
    this.out = proc.stdio[3];
    proc.stdio[4].on('data', (d) => this.onData(d));
    this.exited = new Promise((res) => proc.on('exit', res));
    proc.on('exit', () => {
      for (const [, w] of this.waiting) w.reject(new Error('chromium exited: ' + this.stderr().slice(-500)));
      this.waiting.clear();
    });
  }
  onData(d) {
    this.buf = Buffer.concat([this.buf, d]);
    let i;
    while ((i = this.buf.indexOf(0)) >= 0) {
      const msg = JSON.parse(this.buf.subarray(0, i).toString('utf8'));
      this.buf = this.buf.subarray(i + 1);
      if (msg.id !== undefined && this.waiting.has(msg.id)) {
        const w = this.waiting.get(msg.id);
        this.waiting.delete(msg.id);
        if (msg.error) w.reject(new Error(`${w.method}: ${msg.error.message}`));
        else w.resolve(msg.result);
      } else if (msg.method) {
        for (const l of this.listeners) l(msg);
      }
    }
  }
  send(method, params = {}, sessionId) {
    const id = ++this.id;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, method });
      this.out.write(JSON.stringify(msg) + '\0');
    });
  }
  async newPage(width = 1400, height = 1000) {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const p = new Page(this, sessionId, targetId);
    await p.init(width, height);
    return p;
  }
  async close() {
    try { await Promise.race([this.send('Browser.close'), new Promise((r) => setTimeout(r, 3000))]); } catch (e) { /* gone */ }
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(t);
    fs.rmSync(this.userDataDir, { recursive: true, force: true });
  }
}

class Page {
  constructor(browser, sessionId, targetId) {
    this.b = browser;
    this.sid = sessionId;
    this.targetId = targetId;
    this.errors = [];      // uncaught exceptions and console errors
    this.requests = [];    // every URL the page asked for
    this.events = [];
    browser.listeners.add((m) => {
      if (m.sessionId !== this.sid) return;
      if (m.method === 'Runtime.exceptionThrown') {
        const d = m.params.exceptionDetails;
        this.errors.push('exception: ' + ((d.exception && d.exception.description) || d.text));
      } else if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error') {
        this.errors.push('console.error: ' + m.params.args.map((a) => a.value ?? a.description).join(' '));
      } else if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error') {
        this.errors.push('log: ' + m.params.entry.text + ' ' + (m.params.entry.url || ''));
      } else if (m.method === 'Network.requestWillBeSent') {
        this.requests.push(m.params.request.url);
      }
      this.events.push(m);
      if (this.events.length > 200) this.events.shift();
    });
  }
  send(method, params) { return this.b.send(method, params, this.sid); }
  async init(width, height) {
    await this.send('Page.enable');
    await this.send('Runtime.enable');
    await this.send('Log.enable');
    await this.send('Network.enable');
    await this.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
  }
  waitEvent(method, timeoutMs = 30000) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => { this.b.listeners.delete(f); reject(new Error('timeout waiting for ' + method)); }, timeoutMs);
      const f = (m) => {
        if (m.sessionId === this.sid && m.method === method) {
          clearTimeout(t); this.b.listeners.delete(f); resolve(m.params);
        }
      };
      this.b.listeners.add(f);
    });
  }
  async goto(url, timeoutMs = 60000) {
    const loaded = this.waitEvent('Page.loadEventFired', timeoutMs);
    const r = await this.send('Page.navigate', { url });
    if (r.errorText) throw new Error('navigate: ' + r.errorText);
    await loaded;
  }
  async eval(expr) {
    const r = await this.send('Runtime.evaluate', { expression: expr, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) {
      const d = r.exceptionDetails;
      throw new Error('evaluate: ' + ((d.exception && d.exception.description) || d.text));
    }
    return r.result.value;
  }
  async waitFor(expr, timeoutMs = 30000) {
    const t0 = Date.now();
    for (;;) {
      if (await this.eval(`!!(${expr})`)) return Date.now() - t0;
      if (Date.now() - t0 > timeoutMs) throw new Error('timeout waiting for ' + expr);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  async key(key, code, keyCode, modifiers = 0) {
    const base = { key, code, windowsVirtualKeyCode: keyCode, nativeVirtualKeyCode: keyCode, modifiers };
    await this.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...base });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
  }
  async click(x, y) {
    const base = { x, y, button: 'left', clickCount: 1 };
    await this.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
    await this.send('Input.dispatchMouseEvent', { type: 'mousePressed', ...base });
    await this.send('Input.dispatchMouseEvent', { type: 'mouseReleased', ...base });
  }
  async insertText(text) { await this.send('Input.insertText', { text }); }
  async screenshot(file) {
    const r = await this.send('Page.captureScreenshot', { format: 'png' });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, Buffer.from(r.data, 'base64'));
  }
  async close() { await this.b.send('Target.closeTarget', { targetId: this.targetId }); }
}
