// The real Claude Code CLI (pinned, from npm) as ClawMux spawns it, in tmux, with ClawMux's settings and
// hooks, driven by a scripted model: what an idle agent costs, and that a wait Claude Code moved to the
// background takes no message.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentProcesses, startHub, within } from './harness.mjs';
import { claudeBinary, claudeEnv, contentText, follower, prepareHome, spawnSky, startModel } from './real-claude.mjs';

let claude;
before(() => { claude = claudeBinary(); });

/** A hub whose agents are the real CLI talking to `model`, with `env` added to the hub's options. */
async function realHub(model, env = {}) {
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port), ...env } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  return hub;
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

/** When process `pid` started, in ms since the machine booted (/proc, to the clock's tick). */
function startedAt(pid) {
  const ticks = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[19]);
  return (ticks * 1000) / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
}

/** Kills the hub and its tmux server at once, as a reboot does, and waits until the hub is gone. */
async function reboot(hub) {
  const pid = hub.pid;
  process.kill(pid, 'SIGKILL');
  try { hub.tmux(['kill-server']); } catch { /* its agents are gone already */ }
  const gone = () => { try { process.kill(pid, 0); return false; } catch { return true; } };
  for (const end = Date.now() + 10000; !gone();) {
    if (Date.now() > end) throw new Error('the hub outlived SIGKILL');
    await new Promise((ok) => setImmediate(ok));
  }
}

test('after a reboot every agent comes back in its conversation, one after the other, one cut off mid-turn told so; with resuming at start off, `clawmux resume --all` does it', async () => {
  let release;
  const held = new Promise((ok) => { release = ok; });
  const follow = follower();
  const model = await startModel(async (req) => {
    // Rain is working on this when the machine goes down.
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] build the docs/.test(req.last)) await held;
    return follow(req);
  });
  const hub = await realHub(model);
  prepareHome(hub.dir, ['sky', 'rain'].map((name) => join(hub.data, 'agents', name)));
  let ev = await hub.events();
  try {
    for (const name of ['sky', 'rain']) {
      const m = ev.mark();
      hub.clawmux(['spawn', name, '--', '--permission-mode', 'default']);
      await ev.state(name, 'idle', m, 60000);
    }
    let m = ev.mark();
    const said = await hub.api('POST', '/api/sessions/sky/messages', { text: 'remember the heron' });
    await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === said.id, 60000);
    await ev.state('sky', 'idle', m, 60000);
    m = ev.mark();
    const docs = await hub.api('POST', '/api/sessions/rain/messages', { text: 'build the docs' });
    await ev.state('rain', 'processing', m, 60000);
    ev.close();

    const rebootAt = Date.now();
    await reboot(hub);
    release();
    await hub.resume();
    ev = await hub.events();
    await ev.state('sky', 'idle', 0, 90000);
    await ev.state('rain', 'idle', 0, 90000);
    // Each continued its conversation: the model is sent what came before.
    const after = model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length && JSON.stringify(r.body.messages).length > 0);
    const first = (name) => model.turns.find((t) => t.at > rebootAt && t.last.includes(`You are \`${name}\``));
    assert.ok(first('sky'), 'sky was started again');
    assert.ok(first('rain'), 'rain was started again');
    assert.match(first('sky').last, /ClawMux restarted you/, 'sky was idle: nothing was cut off');
    assert.match(first('rain').last, /cut off/, 'rain is told its work was cut off');
    assert.ok(after.some((r) => JSON.stringify(r.body.messages).includes('remember the heron') && JSON.stringify(r.body.messages).includes('ClawMux restarted you')),
      'sky resumed with its earlier turns');
    // Rain's: the CLI had not written the wait's result (the message) to its conversation when it was
    // killed, so it is told which message it was handed last, and the user's note names it.
    const rainAfter = after.filter((r) => JSON.stringify(r.body.messages).includes('cut off'));
    assert.ok(rainAfter.some((r) => JSON.stringify(r.body.messages).includes('Read CLAUDE.md, then run')),
      'rain resumed with its earlier turns');
    assert.match(first('rain').last, new RegExp(`The last message you were handed was ${docs.id}`));
    // Started one after the other: the agents' processes (their tmux panes) began 2 s apart.
    const began = Object.fromEntries(hub.tmux(['list-panes', '-a', '-F', '#{session_name} #{pane_pid}']).trim().split('\n')
      .map((line) => line.split(' ')).map(([name, pid]) => [name, startedAt(Number(pid))]));
    const apart = Math.abs(began.rain - began.sky);
    assert.ok(apart >= 1900, `started ${apart} ms apart: not one after the other (${JSON.stringify(began)})`);
    const notes = await hub.api('GET', '/api/history/rain');
    assert.ok(notes.messages.some((x) => x.kind === 'system' && x.text.includes(`resumed in its conversation after the interruption. It was working on ${docs.id} ("build the docs")`)),
      JSON.stringify(notes.messages.map((x) => x.text)));

    // Off at start: after the next reboot they stay offline until `clawmux resume --all`.
    assert.match(hub.clawmux(['resume', '--at-start', 'off']), /^$/);
    assert.match(hub.clawmux(['resume']), /resuming interrupted agents at start: off/);
    ev.close();
    await reboot(hub);
    await hub.resume();
    ev = await hub.events();
    // The hub finds them gone (it looks once it serves) and leaves them offline.
    const states = async () => (await hub.api('GET', '/api/sessions')).map((s) => [s.session_id, s.state]).sort();
    for (const end = Date.now() + 20000; JSON.stringify(await states()) !== JSON.stringify([['rain', 'dead'], ['sky', 'dead']]);) {
      if (Date.now() > end) assert.fail(`not both offline: ${JSON.stringify(await states())}`);
      await ev.until((e) => e.type === 'session_status', 1000).catch(() => {});
    }
    assert.deepEqual(hub.clawmux(['resume', '--all']).trim().split('\n').sort(), ['rain: resuming', 'sky: resuming']);
    await ev.state('sky', 'idle', 0, 90000);
    await ev.state('rain', 'idle', 0, 90000);
    assert.equal(hub.clawmux(['resume', '--all']), 'no agent was interrupted\n');
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});

/**
 * A scripted model that follows ClawMux's instructions, `first(req)` answering before it where it answers,
 * and holds its answer to "think long" until `release()`: `thinking` resolves once it holds one, so a test
 * can act while the agent works.
 */
async function holdingModel(first = () => null) {
  let release = () => {};
  const released = new Promise((ok) => { release = ok; });
  let holding = () => {};
  const thinking = new Promise((ok) => { holding = ok; });
  const follow = follower();
  const model = await startModel(async (req) => {
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] think long/.test(req.last)) {
      holding();
      await released;
    }
    return first(req) ?? follow(req);
  });
  return { model, thinking, release };
}

test('the model and the effort switched from the window: the agent starts again with them in its conversation, the next request names them; refused while it works', async () => {
  const { model, thinking, release } = await holdingModel();
  const hub = await realHub(model);
  const ev = await hub.events();
  const main = () => model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length);
  try {
    await spawnSky(hub, ev);
    let m = ev.mark();
    let sent = await hub.api('POST', '/api/sessions/sky/messages', { text: 'remember the heron' });
    await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 60000);
    await ev.state('sky', 'idle', m, 60000);
    const before = main().at(-1).body.model;
    assert.doesNotMatch(before, /haiku/);

    // While it works, the switch is refused with the reason, and nothing restarts.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'think long' });
    await thinking;
    await ev.state('sky', 'processing', m, 60000);
    await assert.rejects(hub.api('POST', '/api/command', { command: 'set_model', session_id: 'sky', model: 'haiku' }),
      /409 .*agent_busy.*switch its model once it waits for you/);
    release();
    await ev.state('sky', 'idle', m, 60000);

    // Idle: it starts again with the model, resuming its conversation.
    m = ev.mark();
    const switched = await hub.api('POST', '/api/command', { command: 'set_model', session_id: 'sky', model: 'haiku' });
    assert.equal(switched.session_id, 'sky', JSON.stringify(switched));
    await ev.state('sky', 'starting', m, 60000);
    await ev.state('sky', 'idle', m, 60000);
    m = ev.mark();
    sent = await hub.api('POST', '/api/sessions/sky/messages', { text: 'which model now' });
    await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 60000);
    const after = main().at(-1);
    assert.match(after.body.model, /haiku/, `the next request's model: ${after.body.model}`);
    assert.ok(JSON.stringify(after.body.messages).includes('remember the heron'), 'the same conversation');
    await assert.rejects(hub.api('POST', '/api/command', { command: 'set_model', session_id: 'sky', model: '--dangerously-skip-permissions' }),
      /400 .*bad_model/);

    // The effort likewise: the agent starts again with it, and the next request asks the model for it.
    await ev.state('sky', 'idle', m, 60000);
    m = ev.mark();
    await hub.api('POST', '/api/command', { command: 'set_effort', session_id: 'sky', effort: 'low' });
    await ev.state('sky', 'starting', m, 60000);
    await ev.state('sky', 'idle', m, 60000);
    m = ev.mark();
    sent = await hub.api('POST', '/api/sessions/sky/messages', { text: 'and now' });
    await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 60000);
    const low = main().at(-1).body;
    assert.notEqual(after.body.output_config?.effort, 'low');
    assert.equal(low.output_config?.effort, 'low', `the next request's output_config: ${JSON.stringify(low.output_config)}`);
    assert.match(low.model, /haiku/, 'the model stays');
    assert.ok(JSON.stringify(low.messages).includes('remember the heron'), 'the same conversation');
  } finally {
    release();
    ev.close();
    hub.stop();
    await model.close();
  }
});

test('slash commands from the window: /compact runs in the agent\'s Claude Code and it is back in its wait; a custom command\'s prompt reaches the model; unknown ones, and any while it works, are refused', async () => {
  // Claude Code's request for the summary that replaces the conversation gets one.
  const { model, thinking, release } = await holdingModel((req) => (/summary of the conversation/i.test(req.last)
    ? { text: '<summary>The user likes herons.</summary>' } : null));
  // Reminded to wait again one second after the command is quiet (a minute by default).
  const hub = await realHub(model, { CLAWMUX_NUDGE_AFTER_INTERRUPT_MS: '1000' });
  mkdirSync(join(hub.dir, '.claude', 'commands'), { recursive: true });
  writeFileSync(join(hub.dir, '.claude', 'commands', 'herons.md'), '---\ndescription: Herons, briefly\n---\nTell me about herons: $ARGUMENTS\n');
  const ev = await hub.events();
  const slash = (text) => hub.api('POST', '/api/command', { command: 'slash', session_id: 'sky', text });
  try {
    await spawnSky(hub, ev);
    const offered = await hub.api('POST', '/api/command', { command: 'slash_commands', session_id: 'sky' });
    assert.deepEqual(offered.find((c) => c.name === 'herons'), { name: 'herons', description: 'Herons, briefly', source: 'user' });
    assert.ok(offered.some((c) => c.name === 'compact' && c.source === 'built_in'));
    await assert.rejects(slash('/nosuch'), /400 .*bad_slash_command.*no command `\/nosuch`/);

    // /compact: the agent compacts, then is back in its wait, and still answers.
    let m = ev.mark();
    await slash('/compact keep the heron notes');
    await ev.state('sky', 'compacting', m, 60000);
    await ev.state('sky', 'idle', m, 90000);
    m = ev.mark();
    let sent = await hub.api('POST', '/api/sessions/sky/messages', { text: 'still there' });
    // Idle after the answer (a status of before the turn may follow the mark: a loaded machine is late).
    const answered = await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 60000);
    await ev.state('sky', 'idle', ev.seen.indexOf(answered), 60000);

    // A custom command is its prompt, with the arguments, in a turn of its own that ends in the wait.
    m = ev.mark();
    const turns = model.turns.length;
    await slash('/herons the tall ones');
    const working = await ev.state('sky', 'processing', m, 60000);
    await ev.state('sky', 'idle', ev.seen.indexOf(working), 60000);
    assert.ok(model.turns.slice(turns).some((t) => t.last.includes('Tell me about herons: the tall ones')),
      `the model was given the command's prompt: ${model.turns.slice(turns).map((t) => t.last).join(' | ')}`);

    // While it works: refused, nothing typed.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'think long' });
    await thinking;
    await ev.state('sky', 'processing', m, 60000);
    await assert.rejects(slash('/clear'), /409 .*agent_busy.*send it once it waits for you/);
    release();
    await ev.state('sky', 'idle', m, 60000);
  } finally {
    release();
    ev.close();
    hub.stop();
    await model.close();
  }
});

test('a model the account cannot use is a failed start the user undoes at once; a model typed with /model is the one it starts on next', async () => {
  const model = await startModel(follower(), { unknownModel: (name) => /gone/.test(name) });
  const hub = await realHub(model);
  const ev = await hub.events();
  const main = () => model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length);
  const launch = () => JSON.parse(execFileSync('sqlite3', [join(hub.data, 'clawmux.db'), "SELECT launch FROM agents WHERE name = 'sky'"], { encoding: 'utf8' }));
  try {
    await spawnSky(hub, ev);
    // Switched to a model the API answers 404 for: the start fails, and says so at once.
    let m = ev.mark();
    await hub.api('POST', '/api/command', { command: 'set_model', session_id: 'sky', model: 'claude-gone-1' });
    const failed = await ev.until((x) => ev.seen.indexOf(x) >= m && x.type === 'session_status' && x.session_id === 'sky'
      && x.state === 'starting' && x.needs?.need === 'error', 60000, 'the failed start shown');
    assert.match(failed.needs.reason, /gone|model|not.found/i, failed.needs.reason);
    // Switching back is taken then, not refused as a start under way.
    m = ev.mark();
    await hub.api('POST', '/api/command', { command: 'set_model', session_id: 'sky', model: null });
    await ev.state('sky', 'idle', m, 90000);
    assert.equal(launch().model ?? null, null);

    // `/model haiku` typed from the window: the live session switches, and so does what it starts on.
    m = ev.mark();
    await hub.api('POST', '/api/command', { command: 'slash', session_id: 'sky', text: '/model haiku' });
    await within((async () => { while (launch().model !== 'haiku') await new Promise((ok) => setTimeout(ok, 100)); })(), 30000, 'the model kept');
    await ev.state('sky', 'idle', m, 90000);
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/restart');
    await ev.state('sky', 'starting', m, 60000);
    await ev.state('sky', 'idle', m, 90000);
    m = ev.mark();
    const sent = await hub.api('POST', '/api/sessions/sky/messages', { text: 'which model after the restart' });
    await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 60000);
    assert.match(main().at(-1).body.model, /haiku/, `after a restart: ${main().at(-1).body.model}`);
  } catch (e) {
    console.log('states', JSON.stringify(ev.seen.filter((x) => x.type === 'session_status').map((x) => `${x.state}:${x.needs?.need ?? ''}:${x.needs?.reason ?? ''}`)));
    throw e;
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});
