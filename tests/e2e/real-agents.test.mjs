// The real Claude Code CLI (pinned, from npm) as ClawMux spawns it, in tmux, with ClawMux's settings and
// hooks, driven by a scripted model: what an idle agent costs, and that a wait Claude Code moved to the
// background takes no message.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentProcesses, startHub } from './harness.mjs';
import { claudeBinary, claudeEnv, follower, prepareHome, startModel } from './real-claude.mjs';

let claude;
before(() => { claude = claudeBinary(); });

/** A hub whose agents are the real CLI talking to `model`, with `env` added to the hub's options. */
async function realHub(model, env = {}) {
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port), ...env } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  return hub;
}

/** Spawns the real CLI as agent `sky` (in Claude Code's default permission mode) and waits until it is in
 * its `clawmux wait`; returns the settings ClawMux gave it. */
async function spawnSky(hub, ev) {
  const m = ev.mark();
  hub.clawmux(['spawn', 'sky', '--', '--permission-mode', 'default']);
  await ev.state('sky', 'idle', m, 60000);
  return JSON.parse(readFileSync(join(hub.data, 'launch', 'sky', 'settings.json'), 'utf8'));
}

/** The `clawmux wait` processes of the hub's agents that are still running. */
function waits(hub) {
  return agentProcesses(hub.data).filter((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return cmd.at(-2)?.endsWith('clawmux') && cmd.at(-1) === 'wait' && stat.split(') ')[1][0] !== 'Z';
    } catch { return false; }
  });
}

test('an idle real agent costs no model turn, and no state change, while it waits', async () => {
  const model = await startModel(follower());
  const hub = await realHub(model);
  const ev = await hub.events();
  try {
    const settings = await spawnSky(hub, ev);
    // The settings give Bash a day: Claude Code would otherwise move the wait to the background at its own
    // default and call the model again.
    assert.deepEqual(settings.env, { BASH_DEFAULT_TIMEOUT_MS: '86400000', BASH_MAX_TIMEOUT_MS: '86400000' });
    const turns = model.turns.length;
    let m = ev.mark();
    await new Promise((ok) => setTimeout(ok, 8000)); // the idle time being measured
    assert.equal(model.turns.length, turns, 'no model request while idle');
    assert.deepEqual(ev.seen.slice(m).filter((e) => e.type === 'session_status' && e.session_id === 'sky'), [], 'no blip');
    assert.equal(waits(hub).length, 1, 'one wait');
    // And a message still gets through, once.
    m = ev.mark();
    const sent = await hub.api('POST', '/api/sessions/sky/messages', { text: 'ping one' });
    const answer = await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 60000);
    assert.equal(answer.text, 'heard: ping one');
    await ev.state('sky', 'idle', m, 60000);
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});

test('a real agent whose wait Claude Code moves to the background: that wait ends and takes no message', async () => {
  const model = await startModel(follower());
  // Bash calls time out after 4 s here, as a day does in use.
  const hub = await realHub(model, { CLAWMUX_BASH_TIMEOUT_MS: '4000' });
  const ev = await hub.events();
  try {
    const settings = await spawnSky(hub, ev);
    assert.equal(settings.env.BASH_MAX_TIMEOUT_MS, '4000');
    // The timeout: the CLI moves the wait to the background and asks the model again, which waits again.
    const turns = model.turns.length;
    let m = ev.mark();
    await ev.state('sky', 'processing', m, 20000);
    await ev.state('sky', 'idle', m, 20000);
    assert.ok(model.turns.length > turns, 'the model was asked again after the timeout');
    assert.match(model.turns.at(-1).last, /background/i, `what the model was told: ${model.turns.at(-1).last}`);
    // The backgrounded wait has ended: only the new one runs.
    for (let i = 0; i < 50 && waits(hub).length > 1; i++) await new Promise((ok) => setTimeout(ok, 100));
    assert.equal(waits(hub).length, 1, 'the backgrounded wait ended');
    // A message now reaches the wait in the foreground, and Claude sees it.
    m = ev.mark();
    const sent = await hub.api('POST', '/api/sessions/sky/messages', { text: 'ping two' });
    const answer = await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 20000);
    assert.equal(answer.text, 'heard: ping two');
    const seenBy = model.turns.filter((t) => t.last.includes('ping two'));
    assert.equal(seenBy.length >= 1, true, 'the model saw the message');
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});
