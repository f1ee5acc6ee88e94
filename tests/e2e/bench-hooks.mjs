// What ClawMux's hooks cost Claude Code: the real CLI (pinned, from npm) in tmux, one turn of 200 quick tool
// calls (a Read of a small file) from the scripted model, timed at the model from its first Read to the
// request after the last, with no hooks at all and as an agent the hub spawned (its hooks posted to its
// relay). Also the CPU the hub and the relay spend per hook, from /proc.
//
// Run: node tests/e2e/bench-hooks.mjs   (RUNS=3 CALLS=200 by default)

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub } from './harness.mjs';
import { claudeBinary, claudeEnv, prepareHome, startModel } from './real-claude.mjs';

const CALLS = Number(process.env.CALLS ?? 200);
const RUNS = Number(process.env.RUNS ?? 3);
const claude = claudeBinary();
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** CPU time (ms) of process `pid` so far. */
function cpu(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** A model that, at `go` in what it is sent, reads `CALLS` times and then ends the turn; it notes when. */
function timedReader(folder, times) {
  let left = 0;
  return ({ last }) => {
    if (/\bgo-read\b/.test(last) && left === 0 && !times.first) left = CALLS;
    if (left > 0) {
      if (left === CALLS) times.first = performance.now();
      left -= 1;
      return { tool: { name: 'Read', input: { file_path: join(folder(), 'small.txt') } } };
    }
    if (times.first && !times.last) {
      times.last = performance.now();
      return { text: 'done' };
    }
    return { tool: { name: 'Bash', input: { command: 'clawmux wait', description: 'wait' } } };
  };
}

const until = async (check, ms, what) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
};

/** One turn with no hooks: claude in a tmux session of its own, given the prompt at start. */
async function bare() {
  const times = {};
  let folder;
  const model = await startModel(timedReader(() => folder, times));
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  folder = join(hub.dir, 'bare');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'small.txt'), 'hello\n');
  prepareHome(hub.dir, [folder]);
  writeFileSync(join(hub.dir, 'none.json'), '{}');
  const env = { HOME: hub.dir, PATH: process.env.PATH, ...claudeEnv(model.port) };
  const sock = join(hub.dir, 'bare.sock');
  try {
    execFileSync('tmux', ['-S', sock, 'new-session', '-d', '-s', 'bare', '-x', '200', '-y', '50', '-c', folder, '--', claude, '--settings', join(hub.dir, 'none.json'), 'go-read'], { env });
    await until(() => times.last, 120000, 'the bare turn');
    return (times.last - times.first) / CALLS;
  } finally {
    try { execFileSync('tmux', ['-S', sock, 'kill-server'], { stdio: 'ignore' }); } catch { /* gone */ }
    hub.stop();
    await model.close();
  }
}

/** One turn as a spawned agent: the same model, the hub's settings, its relay. */
async function spawned() {
  const times = {};
  let hub;
  const model = await startModel(timedReader(() => join(hub.data, 'agents', 'sky'), times));
  hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  const ev = await hub.events();
  try {
    const m = ev.mark();
    hub.clawmux(['spawn', 'sky', '--permission-mode', 'default']);
    await ev.state('sky', 'idle', m, 60000);
    writeFileSync(join(hub.data, 'agents', 'sky', 'small.txt'), 'hello\n');
    const relay = Number(execFileSync('pgrep', ['-f', `hook relay sky --data-dir ${hub.data}`], { encoding: 'utf8' }).trim().split('\n')[0]);
    const [hub0, relay0] = [cpu(hub.pid), cpu(relay)];
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'go-read' });
    await until(() => times.last, 120000, 'the spawned turn');
    // Each tool call runs PreToolUse and PostToolUse.
    const hooks = 2 * CALLS;
    return { perCall: (times.last - times.first) / CALLS, hubCpu: (cpu(hub.pid) - hub0) / hooks, relayCpu: (cpu(relay) - relay0) / hooks };
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
}

const none = [];
const ours = [];
for (let i = 0; i < RUNS; i++) {
  none.push(await bare());
  ours.push(await spawned());
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const noneMs = median(none);
const oursMs = median(ours.map((o) => o.perCall));
console.log(`tool call, no hooks: ${noneMs.toFixed(2)} ms (runs: ${none.map((x) => x.toFixed(2)).join(', ')})`);
console.log(`tool call, ClawMux's hooks over HTTP: ${oursMs.toFixed(2)} ms (runs: ${ours.map((o) => o.perCall.toFixed(2)).join(', ')})`);
console.log(`ClawMux's added time per tool call: ${(oursMs - noneMs).toFixed(2)} ms`);
console.log(`hub CPU per hook: ${median(ours.map((o) => o.hubCpu)).toFixed(3)} ms; relay CPU per hook: ${median(ours.map((o) => o.relayCpu)).toFixed(3)} ms (tick ${TICK_MS} ms, over ${2 * CALLS} hooks)`);
