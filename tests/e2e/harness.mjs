// The real hub (`clawmux serve --port 0`) in a temporary folder with a temporary HOME, agents driven by the
// real `clawmux` binary, and Debian's Chromium driven by playwright-core (no browser is downloaded).

import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = process.env.CLAWMUX_BIN ?? join(ROOT, 'target/debug/clawmux');
/** The status line ClawMux sets for its agents: the program beside `clawmux`. */
export const STATUS_LINE = join(dirname(BIN), 'clawmux-statusline');
export const ARTIFACTS = join(ROOT, 'test-artifacts');

/** The processes started for agents of the hub whose data folder is `data` (from their environment). */
export function agentProcesses(data) {
  const marker = Buffer.from(`CLAWMUX_HOME=${data}\0`);
  return readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number).filter((pid) => {
    try { return readFileSync(`/proc/${pid}/environ`).includes(marker); } catch { return false; }
  });
}

/** The stand-in for Claude Code (tests/stand-in/claude), which runs the hooks of its --settings file. */
export const STAND_IN = join(ROOT, 'tests/stand-in/claude');
/** The whisper.cpp model the voice tests hear with (Whisper tiny.en, made by scripts/voice-test-model,
 * which scripts/test runs). */
export const TEST_MODEL = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'clawmux-tests/whisper/ggml-tiny.en.bin');

/** Puts the test model in a hub's data folder `data`, as a finished download leaves it. */
export function withTestModel(data) {
  mkdirSync(join(data, 'models'), { recursive: true });
  copyFileSync(TEST_MODEL, join(data, 'models', 'ggml-tiny.en.bin'));
}

/** The device voice's files (Piper's en_US-joe-medium from PyPI, fetched by scripts/voice-test-model). */
export const TEST_VOICES = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'clawmux-tests/piper');
export const VOICE_FILES = ['en_US-joe-medium.onnx', 'en_US-joe-medium.onnx.json'];

/** Puts the device's voice in a hub's data folder `data`, as a finished download leaves it (linked: 60 MiB). */
export function withTestVoice(data) {
  mkdirSync(join(data, 'models'), { recursive: true });
  for (const f of VOICE_FILES) symlinkSync(join(TEST_VOICES, f), join(data, 'models', f));
}

/** Starts `clawmux serve` on `port` (0: a free one); resolves with the child and its port. */
async function serve(data, dir, port, extraEnv) {
  const child = spawn(BIN, ['serve', '--port', String(port), '--data-dir', data], {
    // The hub's log: warnings, or what CLAWMUX_TEST_LOG asks for (a RUST_LOG filter) when a test is looked into.
    env: { HOME: dir, PATH: process.env.PATH, RUST_LOG: process.env.CLAWMUX_TEST_LOG ?? 'warn', ...extraEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((ok, fail) => {
    createInterface({ input: child.stdout }).once('line', ok);
    child.once('exit', (code) => fail(new Error(`the hub exited: ${code}`)));
  });
  return { child, port: Number(/127\.0\.0\.1:(\d+)/.exec(line)[1]) };
}

/** The hubs' temporary folders, removed when this test file's process ends (every hub is stopped by then;
 * `CLAWMUX_KEEP_E2E=1` keeps them to look at): a run leaves no folder behind. */
const folders = [];
process.on('exit', () => {
  if (process.env.CLAWMUX_KEEP_E2E === '1') return;
  for (const f of folders) {
    try { rmSync(f, { recursive: true, force: true }); } catch { /* in use, or gone */ }
  }
});

/** The real hub in a temporary folder and HOME. `env` adds to the hub's environment (its options);
 * `prepare(data)` runs before it starts, on its data folder's path (to put an older installation there). */
export async function startHub({ env: extraEnv = {}, prepare } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'clawmux-e2e-'));
  folders.push(dir);
  const data = join(dir, 'data');
  prepare?.(data);
  let { child, port } = await serve(data, dir, 0, extraEnv);
  const token = readFileSync(join(data, 'token'), 'utf8').trim();
  const env = (agent) => ({
    HOME: dir, PATH: process.env.PATH, CLAWMUX_HOME: data, CLAWMUX_PORT: String(port),
    ...(agent ? { CLAWMUX_SESSION_ID: agent, CLAWMUX_WORK_DIR: join(dir, 'agents', agent) } : {}),
  });
  const hub = {
    dir, data, port, token,
    /** The hub's process id (it changes with a restart). */
    get pid() { return child.pid; },
    tmuxSocket: join(data, 'tmux.sock'),
    url: `http://127.0.0.1:${port}/#token=${token}`,
    /** Runs `clawmux ...` to completion (as the agent, if named); returns stdout. */
    clawmux(args, agent) {
      return execFileSync(BIN, args, { env: env(agent), cwd: agent ? join(dir, 'agents', agent) : dir, encoding: 'utf8' });
    },
    /** Starts `clawmux wait` for an agent; resolves with what it printed when it exits. */
    wait(agent) {
      const p = spawn(BIN, ['wait'], { env: env(agent), cwd: join(dir, 'agents', agent), stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (d) => { out += d; });
      return { process: p, done: new Promise((ok) => p.once('exit', () => ok(out))) };
    },
    /** Runs `clawmux hook <kind>` as `agent` with `payload` on stdin, as Claude Code runs a hook;
     * resolves with what it printed when it exits (a permission hook waits for its answer). */
    hook(agent, kind, payload) {
      const p = spawn(BIN, ['hook', kind], { env: env(agent), cwd: join(dir, 'agents', agent), stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (d) => { out += d; });
      p.stdin.end(JSON.stringify(payload));
      return new Promise((ok) => p.once('exit', () => ok(out)));
    },
    addAgent(name) {
      mkdirSync(join(dir, 'agents', name), { recursive: true });
      return this.clawmux(['agent', 'add', name, '--work-dir', join(dir, 'agents', name)]);
    },
    async api(method, path, body, session) {
      const r = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...(session ? { 'ClawMux-Session': session } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const data = await r.json();
      if (!r.ok) throw new Error(`${path}: ${r.status} ${JSON.stringify(data)}`);
      return data;
    },
    /** Runs tmux against the hub's own tmux server; returns stdout. */
    tmux(args) {
      return execFileSync('tmux', ['-S', join(data, 'tmux.sock'), ...args], { encoding: 'utf8' });
    },
    /** Stops the hub (SIGTERM, as a user quitting) and starts it again on the same port and folder. */
    async restart() {
      await this.halt();
      await this.resume();
    },
    /** Stops the hub (SIGTERM) and leaves it down, its agents running. */
    async halt() {
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
    },
    /** Starts a halted hub again on the same port and folder. */
    async resume() {
      ({ child } = await serve(data, dir, port, extraEnv));
    },
    /** A live view of the hub's UI events (the browser WebSocket). */
    events() {
      return watchEvents(port, token);
    },
    stop() {
      child.kill('SIGKILL');
      try {
        execFileSync('tmux', ['-S', join(data, 'tmux.sock'), 'kill-server'], { stdio: 'ignore' });
      } catch { /* no agents ran */ }
      // Whatever the agents left (their waits) goes too: a test leaves no process behind.
      for (const pid of agentProcesses(data)) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
    },
  };
  return hub;
}

/** Whether something accepts connections on loopback `port`. */
export const listening = (port) => new Promise((ok) => {
  const s = connect(port, '127.0.0.1', () => { s.end(); ok(true); });
  s.on('error', () => ok(false));
});

/** `promise`, or a failure saying what did not come within `ms`: a test fails instead of waiting for ever. */
export function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, fail) => { timer = setTimeout(() => fail(new Error(`${what}: nothing within ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export async function openBrowser(extraArgs = []) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...extraArgs],
  });
  return browser;
}

/**
 * Opens the UI. `errors` collects what is a defect of the page whatever the browser's version: an exception
 * its code did not catch, and anything the page's Content Security Policy blocked in the live document (a
 * `securitypolicyviolation` event, with what was blocked). The browser's own console reports (a failed
 * fetch, work done in an inert document) are not collected: they change from one browser version to the
 * next, and the tests check the behaviour behind them instead.
 */
export async function openUi(browser, hub) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.exposeFunction('__clawmuxBlocked', (what) => errors.push(`CSP blocked: ${what}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__clawmuxBlocked(`${e.effectiveDirective} ${e.blockedURI || 'inline'} (${e.sample})`);
    });
  });
  await page.goto(hub.url);
  await page.waitForSelector('#connection.online');
  return { context, page, errors };
}

/**
 * Collects the hub's UI events from its WebSocket. `until(pred)` resolves with the first event, already
 * received or still to come, that satisfies `pred`; it rejects after `ms` so a missing event fails the test.
 */
export async function watchEvents(port, token) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
  const seen = [];
  const waiting = new Set();
  ws.on('message', (data) => {
    const e = JSON.parse(String(data));
    e.receivedAt = performance.now();
    seen.push(e);
    for (const w of waiting) if (w.pred(e)) { waiting.delete(w); w.ok(e); }
  });
  await new Promise((ok, fail) => { ws.once('open', ok); ws.once('error', fail); });
  return {
    seen,
    until(pred, ms = 10000, what = 'an event') {
      const found = seen.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((ok, fail) => {
        const w = { pred, ok: (e) => { clearTimeout(timer); ok(e); } };
        const timer = setTimeout(() => { waiting.delete(w); fail(new Error(`no ${what} within ${ms} ms`)); }, ms);
        waiting.add(w);
      });
    },
    /** A point in the stream: events from here on are the ones an action caused. */
    mark() { return seen.length; },
    /** A status of `agent` with `state` received at or after `mark`. */
    state(agent, state, mark, ms = 10000) {
      return this.until((e) => seen.indexOf(e) >= mark && e.type === 'session_status' && e.session_id === agent && e.state === state, ms, `${agent} ${state}`);
    },
    /** An event of `type` about `agent` at or after `mark`, that satisfies `pred`. */
    event(type, agent, mark, pred = () => true, ms = 10000) {
      return this.until((e) => seen.indexOf(e) >= mark && e.type === type && (e.session_id ?? e.session?.session_id) === agent && pred(e), ms, `${type} of ${agent}`);
    },
    close() { ws.close(); },
  };
}

/** The text of the page's terminal: its scrollback and screen, one line per row. */
export function screen(page) {
  return page.evaluate(() => {
    const b = window.clawmux.terminal.term?.buffer.active;
    if (!b) return '';
    const lines = [];
    for (let i = 0; i < b.length; i++) lines.push(b.getLine(i).translateToString(true));
    return lines.join('\n');
  });
}

/** Waits until the page's terminal shows `pattern`. */
export async function shows(page, pattern, timeout = 10000) {
  try {
    await page.waitForFunction(([source, flags]) => {
      const b = window.clawmux.terminal.term?.buffer.active;
      if (!b) return false;
      let text = '';
      for (let i = 0; i < b.length; i++) text += `${b.getLine(i).translateToString(true)}\n`;
      return new RegExp(source, flags).test(text);
    }, [pattern.source, pattern.flags], { timeout });
  } catch (e) {
    throw new Error(`the terminal never showed ${pattern}; it shows:\n${await screen(page)}\n(${e.message})`);
  }
}
