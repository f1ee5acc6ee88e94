// The real app window for the desktop tests: Xvfb, a session bus with a notification daemon (dunst) and a
// monitor of what it is asked to show, a PulseAudio server with a null sink, tauri-driver, and the app
// started through it with a test HOME, a data folder, a fake browser (`xdg-open`) and a WAV file as its
// microphone. `useApp()` starts it all before the tests of the file that calls it and stops it after.

import { after, afterEach, before } from 'node:test';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { remote } from 'webdriverio';
import { ARTIFACTS, BIN, listening } from './harness.mjs';
import { startTray } from './tray-host.mjs';

export { listening };

const ROOT = resolve(import.meta.dirname, '../..');
export const APP = process.env.CLAWMUX_DESKTOP ?? join(ROOT, 'target/debug/clawmux-desktop');
export const DRIVER = process.env.TAURI_DRIVER ?? join(process.env.HOME, '.cargo/bin/tauri-driver');
export const DISPLAY = ':77';
const uid = process.getuid();
const BUS_DIR = `/run/user/${uid}`;
export const BUS = `unix:path=${BUS_DIR}/bus`;

export const children = [];
export let browser;
export let notifications = '';
/** The desktop's tray (a StatusNotifierWatcher with a host), which the app's icon registers with. */
export let tray;
export const dir = mkdtempSync(join(tmpdir(), 'clawmux-desktop-'));
export const data = join(dir, 'data');
// tauri-driver starts the app with almost no environment; this wrapper gives it the test's HOME, so its
// window state is kept in the test's folder and never in the real home.
export const LAUNCH = join(dir, 'clawmux-desktop.sh');
// It also plays sound through the test's own PulseAudio server (a null sink), as a desktop session would.
const PULSE = join(dir, 'pulse');
// The user's browser is the desktop's `xdg-open`: here one that notes what it was asked to open.
export const OPENED = join(dir, 'opened');
mkdirSync(join(dir, 'bin'));
writeFileSync(join(dir, 'bin', 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${OPENED}'\n`, { mode: 0o755 });
// Other machines are reached with an ssh config of the test's own (`SSH_CONFIG`), never the user's.
export const SSH_CONFIG = join(dir, 'ssh_config');
writeFileSync(SSH_CONFIG, '');
// More of the app's environment, where a test gives it (shell lines the launcher sources, such as
// `export KEY='value'`, written before the app starts).
export const APP_ENV = join(dir, 'app.env');
writeFileSync(LAUNCH, `#!/bin/sh\n[ -f '${APP_ENV}' ] && . '${APP_ENV}'\nexport HOME='${dir}' XDG_CONFIG_HOME='${dir}/.config' XDG_DATA_HOME='${dir}/.local/share' PULSE_SERVER='unix:${PULSE}/native' PATH='${dir}/bin':"$PATH" CLAWMUX_SSH_CONFIG='${SSH_CONFIG}'\nexec '${APP}' "$@"\n`, { mode: 0o755 });
export const WINDOW_STATE = join(dir, '.config', 'dev.clawmux.desktop', '.window-state.json');
// Real speech for push-to-talk: the app plays this file as its microphone (`--microphone-file`).
export const SPEECH = join(dir, 'speech.wav');
execFileSync('espeak-ng', ['-w', SPEECH, 'please run the tests']);
/** The notification daemon's configuration, its menu script, and which action that script picks. */
const DUNSTRC = join(dir, 'dunstrc');
const DMENU = join(dir, 'dmenu');
export const PICK = join(dir, 'pick');
export const APP_ARGS = ['--data-dir', data, '--microphone-file', SPEECH];

// What each program the harness starts prints goes to a file of its own, never to a pipe no one reads: a
// full pipe stops its writer, and the app (started by WebKitWebDriver, started by tauri-driver) logs into
// tauri-driver's. `test-artifacts/logs/<test file>/<program>.log`, kept for a run that failed.
export const LOGS = join(ARTIFACTS, 'logs', basename(process.argv[1] ?? 'desktop', '.mjs'));
rmSync(LOGS, { recursive: true, force: true });
mkdirSync(LOGS, { recursive: true });
/** The log of the app's window and hub (what tauri-driver, WebKitWebDriver and the app print). */
export const APP_LOG = join(LOGS, 'tauri-driver.log');

/** Starts `cmd` in the test's desktop; its output goes to its log, or to `child.stdout` with `{ read: true }`. */
export function start(cmd, args, env = {}, { read = false } = {}) {
  const log = openSync(join(LOGS, `${basename(cmd)}.log`), 'a');
  const child = spawn(cmd, args, { env: { PATH: process.env.PATH, HOME: dir, DISPLAY, DBUS_SESSION_BUS_ADDRESS: BUS, ...env }, stdio: ['ignore', read ? 'pipe' : log, log] });
  children.push(child);
  return child;
}

/** Waits for `check` to hold, looking every 50 ms (what the window, the bus and the notification daemon do
 * tells the test no event of its own); 30 s by default: two busy cores run the app, WebKit, Xvfb and the
 * daemon beside the test. */
export async function until(what, check, ms = 30000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/** Every running process this user may read: its pid, its program (as /proc names it: ` (deleted)` after a
 * program replaced since it started) and its environment (`KEY=value`). */
export function processes() {
  const out = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const exe = readlinkSync(`/proc/${pid}/exe`);
      out.push({ pid: Number(pid), exe, env: readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0') });
    } catch { /* gone, or not ours */ }
  }
  return out;
}

/** Lets the window paint what the DOM says before a screenshot. */
export async function painted() {
  await browser.executeAsync((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())));
}


/** Starts the app with `args` through tauri-driver; `browser` is its window from then on. */
export async function launchApp(args) {
  browser = await remote({
    hostname: '127.0.0.1',
    port: 4444,
    logLevel: 'warn',
    capabilities: { 'tauri:options': { application: LAUNCH, args } },
  });
}

/** Ends the app's session and waits until the app is gone (its hub port closes). */
export async function quitApp() {
  await browser?.deleteSession().catch(() => {});
  browser = null;
  await until('the app to exit (its hub port closes)', async () => !(await listening(3460)), 20000);
}

/** Starts the window before the tests and stops everything after them. */
export function useApp() {
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    start('Xvfb', [DISPLAY, '-screen', '0', '1280x800x24', '-nolisten', 'tcp']);
    await until('the X display', () => existsSync(`/tmp/.X11-unix/X${DISPLAY.slice(1)}`));
    mkdirSync(BUS_DIR, { recursive: true, mode: 0o700 });
    rmSync(`${BUS_DIR}/bus`, { force: true });
    start('dbus-daemon', ['--session', `--address=${BUS}`, '--nofork', '--nopidfile']);
    await until('the session bus', () => existsSync(`${BUS_DIR}/bus`));
    tray = await startTray(BUS);
    const monitor = start('dbus-monitor', ['--session', "interface='org.freedesktop.Notifications',member='Notify'"], {}, { read: true });
    monitor.stdout.on('data', (d) => { notifications += d; });
    // dunst's context menu runs `dmenu`: here a script that picks the first entry
    // matching the pattern the test writes in PICK (dunst lists `#<label> (<summary>) [<id>,<action>]`,
    // newest first), as a person picks one with the mouse.
    writeFileSync(PICK, 'Allow ');
    writeFileSync(DMENU, `#!/bin/sh\ngrep -m1 -E "^#$(cat '${PICK}')"\n`, { mode: 0o755 });
    writeFileSync(DUNSTRC, `[global]\ndmenu = "${DMENU}"\n`);
    start('dunst', ['-config', DUNSTRC]);
    mkdirSync(PULSE, { recursive: true });
    start('pulseaudio', ['-n', '--daemonize=no', '--exit-idle-time=-1', '--use-pid-file=no', '--disable-shm=yes',
      '-L', `module-native-protocol-unix auth-anonymous=1 socket=${PULSE}/native`, '-L', 'module-null-sink'],
    { XDG_RUNTIME_DIR: PULSE, XDG_CONFIG_HOME: join(dir, '.config') });
    await until('the sound server', () => existsSync(join(PULSE, 'native')));
    start(DRIVER, ['--port', '4444']);
    await until('tauri-driver', () => listening(4444));
    await launchApp(APP_ARGS);
  });

  // A test that failed leaves what the window showed and says what the app last logged.
  afterEach(async (t) => {
    if (t.passed) return;
    const name = t.name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 80);
    await browser?.saveScreenshot(join(ARTIFACTS, `failed-${name}.png`)).catch(() => {});
    const lines = existsSync(APP_LOG) ? readFileSync(APP_LOG, 'utf8').trimEnd().split('\n') : [];
    console.error(`the app's last log lines (${APP_LOG}):\n${lines.slice(-40).join('\n')}`);
  });

  after(async () => {
    await browser?.deleteSession().catch(() => {});
    tray?.close();
    for (const c of children.reverse()) c.kill('SIGKILL');
    // The agents' terminals outlive the app: their tmux server goes before its folder (and its socket) do.
    try { execFileSync('tmux', ['-S', join(data, 'tmux.sock'), 'kill-server'], { stdio: 'ignore' }); } catch { /* none */ }
    // The processes just killed may still be letting go of their files: tried again a few times, and a
    // folder that stays is left to the leftovers check rather than failing the tests that ran.
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) {
      console.error(`could not remove ${dir}: ${e.message}`);
    }
  });
}

/** The window's hub over HTTP (its port from the window's footer), and `clawmux` as agent `agent`. */
export async function windowHub() {
  const address = await (await browser.$('#hub-address')).getText();
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(address)?.[1]);
  const token = readFileSync(join(data, 'token'), 'utf8').trim();
  const env = (agent) => ({ PATH: process.env.PATH, HOME: dir, CLAWMUX_HOME: data, CLAWMUX_PORT: String(port), CLAWMUX_SESSION_ID: agent, CLAWMUX_WORK_DIR: join(dir, agent) });
  return {
    env,
    api: (method, path, body) => fetch(`http://127.0.0.1:${port}${path}`, {
      method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body),
    }).then((r) => r.json()),
    clawmux: (agent, args) => execFileSync(BIN, args, { env: env(agent), encoding: 'utf8' }),
  };
}
