// Agents back after a reboot: AGENTS real Claude Code agents (pinned, from npm; the scripted model) spawned
// and idle, the hub killed with its tmux server at once as a reboot does, and started again: the time from
// the hub's start to every agent Idle again, each resumed in its conversation, one every two seconds.
//
// Run: CLAWMUX_BIN=$PWD/target/release/clawmux node tests/e2e/bench-resume.mjs   (AGENTS=10 by default)

import { join } from 'node:path';
import { startHub } from './harness.mjs';
import { claudeBinary, claudeEnv, follower, prepareHome, startModel } from './real-claude.mjs';

const AGENTS = Number(process.env.AGENTS ?? 10);
const names = Array.from({ length: AGENTS }, (_, i) => `agent${i}`);
const model = await startModel(follower());
const hub = await startHub({ env: { CLAWMUX_CLAUDE: claudeBinary(), ...claudeEnv(model.port) } });
prepareHome(hub.dir, names.map((name) => join(hub.data, 'agents', name)));
let ev = await hub.events();
try {
  for (const name of names) {
    const m = ev.mark();
    hub.clawmux(['spawn', name, '--', '--permission-mode', 'default']);
    await ev.state(name, 'idle', m, 120000);
  }
  ev.close();
  const pid = hub.pid;
  process.kill(pid, 'SIGKILL');
  hub.tmux(['kill-server']);
  for (;;) {
    try { process.kill(pid, 0); } catch { break; }
    await new Promise((ok) => setImmediate(ok));
  }
  const started = performance.now();
  await hub.resume();
  const serving = performance.now() - started;
  ev = await hub.events();
  const idle = {};
  await Promise.all(names.map(async (name) => {
    await ev.state(name, 'idle', 0, 300000);
    idle[name] = performance.now() - started;
  }));
  const last = Math.max(...Object.values(idle));
  console.log(`${AGENTS} agents resumed after a reboot: the hub serving in ${Math.round(serving)} ms; the first Idle after ${Math.round(Math.min(...Object.values(idle)))} ms; all Idle after ${(last / 1000).toFixed(1)} s (goal < 30 s)`);
} finally {
  ev.close();
  hub.stop();
  await model.close();
}
