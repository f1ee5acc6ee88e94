// What ClawMux's hooks cost Claude Code: the real CLI (pinned, from npm) in tmux, one turn of 200 quick tool
// calls (a Read of a small file) from the scripted model, timed at the model from its first Read to the
// request after the last, with no hooks at all and as an agent the hub spawned (its hooks posted to its
// relay). Also the CPU the hub and the relay spend per hook, from /proc, and all ClawMux costs per tool call
// beside Claude Code: the hub, the relay, the terminal bridge it runs behind, and the status line Claude Code runs (a shell and
// `clawmux-statusline`, counted as the CPU of Claude Code's ended children, less what they are without it).
//
// The CPU per tool call is taken again with the model answering a second after each call (SLOW_CALLS of
// them), as a real model does: Claude Code then runs its status line about once per answer.
//
// Run: CLAWMUX_BIN=$PWD/target/release/clawmux node tests/e2e/bench-hooks.mjs   (RUNS=3 CALLS=200 SLOW_CALLS=30 by default)
// PERF_OUT=hub.data also records the hub with `perf` through the first spawned turn (docs/PROFILE.md), the
// first slow one with PERF_TURN=slow.

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, startHub } from './harness.mjs';
import { claudeBinary, claudeEnv, prepareHome, startModel } from './real-claude.mjs';

const CALLS = Number(process.env.CALLS ?? 200);
const SLOW_CALLS = Number(process.env.SLOW_CALLS ?? 30);
/** How long the model takes to answer in the slow turns. */
const SLOW_MS = 1000;
/** How long the hub is watched with the agent idle after a slow turn. */
const IDLE_MS = 10000;
const RUNS = Number(process.env.RUNS ?? 3);
const PATH_HOOKS = 3000;
const claude = claudeBinary();
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** CPU time (ms) of process `pid` so far. */
function cpu(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** CPU time (ms) of the ended children of process `pid` so far (what it has waited for). */
function childrenCpu(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** The process working in `folder` whose arguments pass `test` (its folder is that). */
function processIn(folder, test, what) {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (test(argv) && readlinkSync(`/proc/${pid}/cwd`) === folder) return Number(pid);
    } catch { /* gone, or not ours to read */ }
  }
  throw new Error(`no ${what} working in ${folder}`);
}

/** The Claude Code process working in `folder` (its node process, whose folder that is). */
const claudeIn = (folder) => processIn(folder, (argv) => argv.join(' ').includes('claude') && !argv[0].startsWith('tmux') && argv[1] !== 'pty', 'Claude Code');
/** The terminal bridge a spawned agent's Claude Code runs behind (`clawmux pty`). */
const bridgeIn = (folder) => processIn(folder, (argv) => argv[1] === 'pty', 'terminal bridge');

/** A model that, at `go` in what it is sent, reads `calls` times (answering after `delay` ms) and then ends
 * the turn; it notes when. */
function timedReader(folder, times, { calls, delay }) {
  const later = (reply) => (delay ? new Promise((ok) => setTimeout(() => ok(reply), delay)) : reply);
  let left = 0;
  return ({ last }) => {
    if (/\bgo-read\b/.test(last) && left === 0 && !times.first) left = calls;
    if (left > 0) {
      if (left === calls) times.first = performance.now();
      left -= 1;
      return later({ tool: { name: 'Read', input: { file_path: join(folder(), 'small.txt') } } });
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

/** The tool hooks of a settings file: PreToolUse and PostToolUse run `handler`. */
const toolHooks = (handler) => ({ hooks: { PreToolUse: [{ matcher: '*', hooks: [handler] }], PostToolUse: [{ matcher: '*', hooks: [handler] }] } });

/**
 * A process of its own answering every post `{}` at once, on a loopback port: what any HTTP hook costs Claude
 * Code, and the floor of one hook's path.
 */
async function answeringServer() {
  const child = spawn(process.execPath, ['-e', `
    const server = require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{}'); }); });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((ok, fail) => {
    child.stdout.once('data', (d) => ok(Number(String(d).trim())));
    child.once('exit', (code) => fail(new Error(`the floor server ended (${code})`)));
  });
  return { child, url: `http://127.0.0.1:${port}/` };
}

/** One turn of claude in a tmux session of its own, given the prompt at start, with `settings`. */
async function bare(settings = {}, pace = { calls: CALLS, delay: 0 }) {
  const times = {};
  let folder;
  const model = await startModel(timedReader(() => folder, times, pace));
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  folder = join(hub.dir, 'bare');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'small.txt'), 'hello\n');
  prepareHome(hub.dir, [folder]);
  writeFileSync(join(hub.dir, 'none.json'), JSON.stringify(settings));
  const env = { HOME: hub.dir, PATH: process.env.PATH, ...claudeEnv(model.port) };
  const sock = join(hub.dir, 'bare.sock');
  try {
    execFileSync('tmux', ['-S', sock, 'new-session', '-d', '-s', 'bare', '-x', '200', '-y', '50', '-c', folder, '--', claude, '--settings', join(hub.dir, 'none.json'), 'go-read'], { env });
    await until(() => times.first, 120000, 'the bare turn\'s first read');
    const pid = claudeIn(folder);
    const children0 = childrenCpu(pid);
    await until(() => times.last, 120000, 'the bare turn');
    return { perCall: (times.last - times.first) / pace.calls, childrenCpu: (childrenCpu(pid) - children0) / pace.calls };
  } finally {
    try { execFileSync('tmux', ['-S', sock, 'kill-server'], { stdio: 'ignore' }); } catch { /* gone */ }
    hub.stop();
    await model.close();
  }
}

/** `body` posted PATH_HOOKS times to `url`, one after another: the time of each (ms). */
async function postsEach(url, headers, body) {
  const started = performance.now();
  for (let i = 0; i < PATH_HOOKS; i++) {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    await r.text();
  }
  return (performance.now() - started) / PATH_HOOKS;
}

/** Whether the hub was recorded already (`PERF_OUT`: the first spawned turn only). */
let profiled = false;

/** One turn as a spawned agent: the same model, the hub's settings, its relay. */
async function spawned(pace = { calls: CALLS, delay: 0 }) {
  const times = {};
  let hub;
  const model = await startModel(timedReader(() => join(hub.data, 'agents', 'sky'), times, pace));
  hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  const ev = await hub.events();
  try {
    const m = ev.mark();
    hub.clawmux(['spawn', 'sky', '--permission-mode', 'default']);
    await ev.state('sky', 'idle', m, 60000);
    writeFileSync(join(hub.data, 'agents', 'sky', 'small.txt'), 'hello\n');
    const relay = Number(execFileSync('pgrep', ['-f', `hook relay sky --data-dir ${hub.data}`], { encoding: 'utf8' }).trim().split('\n')[0]);
    const claudePid = claudeIn(join(hub.data, 'agents', 'sky'));
    const bridge = bridgeIn(join(hub.data, 'agents', 'sky'));
    const [hub0, relay0, children0, bridge0] = [cpu(hub.pid), cpu(relay), childrenCpu(claudePid), cpu(bridge)];
    const perf = process.env.PERF_OUT && !profiled && (process.env.PERF_TURN === 'slow') === Boolean(pace.delay)
      ? spawn('perf', ['record', '-q', '-o', process.env.PERF_OUT, '-F', '1999', '--call-graph', 'dwarf,16384', '-p', String(hub.pid)], { stdio: 'ignore' })
      : null;
    profiled ||= Boolean(perf);
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'go-read' });
    await until(() => times.last, 120000, 'the spawned turn');
    if (perf) {
      perf.kill('SIGINT');
      await new Promise((ok) => perf.once('exit', ok));
    }
    // Each tool call runs PreToolUse and PostToolUse.
    const hooks = 2 * pace.calls;
    const turn = {
      perCall: (times.last - times.first) / pace.calls,
      hubCpu: (cpu(hub.pid) - hub0) / hooks,
      relayCpu: (cpu(relay) - relay0) / hooks,
      bridgeCpu: (cpu(bridge) - bridge0) / pace.calls,
      childrenCpu: (childrenCpu(claudePid) - children0) / pace.calls,
    };
    if (pace.delay) {
      // What the hub and the relay spend with the agent idle (waiting in `clawmux wait`), per second.
      const [hubIdle, relayIdle] = [cpu(hub.pid), cpu(relay)];
      await new Promise((ok) => setTimeout(ok, IDLE_MS));
      turn.hubIdle = (cpu(hub.pid) - hubIdle) / (IDLE_MS / 1000);
      turn.relayIdle = (cpu(relay) - relayIdle) / (IDLE_MS / 1000);
      return turn;
    }
    // The hook path alone: the same PostToolUse Claude Code posts, to the relay with the key, one after another.
    const hook = JSON.parse(readFileSync(join(hub.data, 'launch', 'sky', 'settings.json'), 'utf8')).hooks.PostToolUse[0].hooks[0];
    const body = JSON.stringify({ session_id: 'bench', transcript_path: '/nonexistent.jsonl', cwd: join(hub.data, 'agents', 'sky'), hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: 'small.txt' }, tool_response: { type: 'text', file: { content: 'hello' } }, tool_use_id: 'toolu_bench' });
    const [hub1, relay1] = [cpu(hub.pid), cpu(relay)];
    turn.pathMs = await postsEach(hook.url, hook.headers, body);
    turn.pathHubCpu = (cpu(hub.pid) - hub1) / PATH_HOOKS;
    turn.pathRelayCpu = (cpu(relay) - relay1) / PATH_HOOKS;
    // The floor of that path: the same posts to a process that answers `{}` at once.
    turn.floorMs = await postsEach(answering.url, hook.headers, body);
    return turn;
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
}

const answering = await answeringServer();
const modes = {
  'no hooks': () => bare(),
  'two HTTP hooks answered {} at once (what any HTTP hook costs Claude Code)': () => bare(toolHooks({ type: 'http', url: answering.url, timeout: 10 })),
  'two `clawmux hook tool-status` commands (before: the process alone, outside an agent it calls no hub)': () => bare(toolHooks({ type: 'command', command: `${BIN} hook tool-status`, timeout: 10 })),
};
const results = Object.fromEntries([...Object.keys(modes), 'spawned', 'slow bare', 'slow spawned'].map((k) => [k, []]));
const slow = { calls: SLOW_CALLS, delay: SLOW_MS };
for (let i = 0; i < RUNS; i++) {
  for (const [name, run] of Object.entries(modes)) results[name].push(await run());
  results.spawned.push(await spawned());
  results['slow bare'].push(await bare({}, slow));
  results['slow spawned'].push(await spawned(slow));
}
answering.child.kill();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const none = median(results['no hooks'].map((o) => o.perCall));
for (const name of Object.keys(modes)) {
  const ms = median(results[name].map((o) => o.perCall));
  console.log(`tool call, ${name}: ${ms.toFixed(2)} ms (+${(ms - none).toFixed(2)}; runs: ${results[name].map((o) => o.perCall.toFixed(2)).join(', ')})`);
}
const ours = median(results.spawned.map((o) => o.perCall));
console.log(`tool call, an agent ClawMux spawned (its hooks to its relay, its status line): ${ours.toFixed(2)} ms (+${(ours - none).toFixed(2)}; runs: ${results.spawned.map((o) => o.perCall.toFixed(2)).join(', ')})`);
console.log(`hub CPU per hook, all it does in the turn (transcript, status line included): ${median(results.spawned.map((o) => o.hubCpu)).toFixed(3)} ms; relay CPU per hook: ${median(results.spawned.map((o) => o.relayCpu)).toFixed(3)} ms (tick ${TICK_MS} ms, ${2 * CALLS} hooks)`);
const path = (k) => median(results.spawned.map((o) => o[k]));
// ClawMux's CPU per tool call beside Claude Code: the hub's and the relay's, and the status line's processes
// (Claude Code's ended children in the spawned turn, less those of the bare turn: what Claude Code runs of
// its own accord). With answers 70 ms apart Claude Code runs its status line seldom; a second apart, about
// once per answer.
const perCall = (spawnedRuns, bareRuns) => {
  const m = (runs, k) => median(runs.map((o) => o[k]));
  const hub = 2 * m(spawnedRuns, 'hubCpu');
  const relay = 2 * m(spawnedRuns, 'relayCpu');
  const bridge = m(spawnedRuns, 'bridgeCpu');
  const line = Math.max(0, m(spawnedRuns, 'childrenCpu') - m(bareRuns, 'childrenCpu'));
  return `${(hub + relay + bridge + line).toFixed(2)} ms (the hub ${hub.toFixed(2)}, the relay ${relay.toFixed(2)}, the terminal bridge ${bridge.toFixed(2)}, the status line's processes ${line.toFixed(2)})`;
};
console.log(`ClawMux's CPU per tool call beside Claude Code, answers ~70 ms apart (${CALLS} calls): ${perCall(results.spawned, results['no hooks'])}`);
console.log(`ClawMux's CPU per tool call beside Claude Code, answers a second apart (${SLOW_CALLS} calls): ${perCall(results['slow spawned'], results['slow bare'])}`);
const idle = (k) => median(results['slow spawned'].map((o) => o[k])).toFixed(2);
console.log(`the hub with its agent idle, waiting for a message: ${idle('hubIdle')} ms of CPU a second; the relay ${idle('relayIdle')} ms`);
console.log(`the hook path alone (${PATH_HOOKS} PostToolUse posts to the relay, one at a time): ${path('pathMs').toFixed(3)} ms each; hub CPU per hook ${path('pathHubCpu').toFixed(3)} ms, relay CPU per hook ${path('pathRelayCpu').toFixed(3)} ms`);
console.log(`the same posts to a process answering {} at once: ${path('floorMs').toFixed(3)} ms each; so ClawMux's own time per hook ${(path('pathMs') - path('floorMs')).toFixed(3)} ms, per tool call (two hooks) ${(2 * (path('pathMs') - path('floorMs'))).toFixed(3)} ms`);
