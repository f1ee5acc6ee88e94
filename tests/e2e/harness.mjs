// The real hub (`clawmux serve --port 0`) in a temporary folder with a temporary HOME, agents driven by the
// real `clawmux` binary, and Debian's Chromium driven by playwright-core (no browser is downloaded).

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = process.env.CLAWMUX_BIN ?? join(ROOT, 'target/debug/clawmux');
export const ARTIFACTS = join(ROOT, 'test-artifacts');

export async function startHub() {
  const dir = mkdtempSync(join(tmpdir(), 'clawmux-e2e-'));
  const data = join(dir, 'data');
  const child = spawn(BIN, ['serve', '--port', '0', '--data-dir', data], {
    env: { HOME: dir, PATH: process.env.PATH, RUST_LOG: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((ok, fail) => {
    createInterface({ input: child.stdout }).once('line', ok);
    child.once('exit', (code) => fail(new Error(`the hub exited: ${code}`)));
  });
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(line)[1]);
  const token = readFileSync(join(data, 'token'), 'utf8').trim();
  const env = (agent) => ({
    HOME: dir, PATH: process.env.PATH, CLAWMUX_HOME: data, CLAWMUX_PORT: String(port),
    ...(agent ? { CLAWMUX_SESSION_ID: agent, CLAWMUX_WORK_DIR: join(dir, 'agents', agent) } : {}),
  });
  const hub = {
    dir, port, token,
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
    stop() {
      child.kill('SIGKILL');
    },
  };
  return hub;
}

export async function openBrowser() {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return browser;
}

/** Opens the UI and fails the test on any error the page logs. */
export async function openUi(browser, hub) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(hub.url);
  await page.waitForSelector('#connection.online');
  return { context, page, errors };
}
