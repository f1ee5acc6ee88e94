// Real agents: `clawmux spawn` starts the stand-in Claude Code (which runs the hooks of the settings file
// ClawMux writes, command and HTTP) in a real tmux session; the hub watches, reminds and ends it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, STAND_IN, agentProcesses, startHub } from './harness.mjs';

function readLog(file) {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
}

/** An agent's decision log (JSON lines). */
async function decisions(hub, agent) {
  const r = await fetch(`http://127.0.0.1:${hub.port}/api/sessions/${agent}/log/decisions`, { headers: { Authorization: `Bearer ${hub.token}` } });
  assert.equal(r.status, 200);
  return (await r.text()).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** Whether `pid` still runs (a zombie waiting for its parent to reap it does not). */
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Every pid of the tree under `root`, from /proc. */
function tree(root) {
  const parent = new Map();
  for (const p of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      parent.set(Number(p), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, pp] of parent) if (pp === out[i]) out.push(pid);
  return out;
}

/** The pid of the process tmux runs for `agent`. */
function panePid(hub, agent) {
  return Number(hub.tmux(['display-message', '-p', '-t', `=${agent}:`, '#{pane_pid}']).trim());
}

function hubWithStandIn(extraEnv = {}) {
  return startHub({ env: { CLAWMUX_CLAUDE: STAND_IN, ...extraEnv } });
}

test('a spawned agent runs with our hooks, answers, ends cleanly and resumes', async () => {
  // The stand-in logs where the test says; the hub passes its environment on to tmux.
  const log = join(mkdtempSync(join(tmpdir(), 'clawmux-stand-in-')), 'log');
  const h = await hubWithStandIn({ STANDIN_LOG: log });
  const ev = await h.events();
  try {
    let m = ev.mark();
    const printed = h.clawmux(['spawn', 'sky']);
    assert.match(printed, /sky is starting/);
    await ev.event('session_spawned', 'sky', m, (e) => e.session.state === 'starting' && e.session.launch === 'claude');
    await ev.state('sky', 'idle', m);

    // What ClawMux wrote: instructions, and a settings file with no token in it.
    const work = join(h.data, 'agents', 'sky');
    assert.match(readFileSync(join(work, 'CLAUDE.md'), 'utf8'), /clawmux wait/);
    const settingsFile = join(h.data, 'launch', 'sky', 'settings.json');
    assert.ok(!readFileSync(settingsFile, 'utf8').includes(h.token), 'the token is not in the settings file');
    assert.ok(!existsSync(join(h.dir, '.claude', 'settings.json')), 'the global settings are never written');
    // Nor is it on any command line: every local user can read those (the tmux server keeps its first
    // client's for its whole life).
    const exposed = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try { return readFileSync(`/proc/${p}/cmdline`).includes(h.token); } catch { return false; }
    });
    assert.deepEqual(exposed, [], 'processes with the token on their command line');
    // And no agent holds it: what an agent does needs none on the hub's private socket.
    const holders = agentProcesses(h.data).filter((p) => {
      try { return readFileSync(`/proc/${p}/environ`).includes(h.token); } catch { return false; }
    });
    assert.ok(agentProcesses(h.data).length > 0);
    assert.deepEqual(holders, [], 'agent processes with the token in their environment');

    // The hooks really ran: SessionStart a `clawmux` command (the only kind Claude Code runs for it), every
    // other one posted to the agent's relay, on a port it holds for the agent's life (never the hub's
    // TCP port, which anyone can take while the hub is down), with the agent's key.
    let entries = readLog(log);
    const first = entries.find((e) => e.argv);
    assert.deepEqual(first.argv.slice(0, 3), ['--settings', settingsFile, '--session-id']);
    const session = first.argv[3];
    assert.equal(entries.find((e) => e.event === 'SessionStart')?.code, 0);
    assert.deepEqual(entries.filter((e) => e.type === 'command').map((e) => e.event), ['SessionStart'], 'one command hook');
    const posts = entries.filter((e) => e.type === 'http');
    assert.ok(posts.some((e) => e.event === 'PreToolUse'), 'PreToolUse ran');
    assert.deepEqual(posts.filter((e) => e.status !== 200), [], 'every hook succeeded');
    const url = new URL(JSON.parse(readFileSync(settingsFile, 'utf8')).hooks.PreToolUse[0].hooks[0].url);
    assert.equal(url.hostname, '127.0.0.1');
    assert.notEqual(url.port, String(h.port), 'the relay\'s port, not the hub\'s');
    const received = await (await fetch(`http://127.0.0.1:${h.port}/api/sessions/sky/log/events`, { headers: { Authorization: `Bearer ${h.token}` } })).text();
    assert.match(received, /hook:PreToolUse/, 'the hub received the tool hooks');

    // A message in, an answer out, threaded under it.
    m = ev.mark();
    const sent = await h.api('POST', '/api/sessions/sky/messages', { text: 'hello sky' });
    const answer = await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id);
    assert.equal(answer.text, 'echo: hello sky');
    await ev.state('sky', 'idle', m);

    // Terminate: the whole tree ends, the state is DEAD, the history stays.
    // Idle is told at the turn's end; the agent then starts its next `clawmux wait`, which a loaded machine
    // takes a moment to run (a process tree tells no event: it is looked at until it shows, 30 s at most).
    let pids = tree(panePid(h, 'sky'));
    for (const by = Date.now() + 30000; pids.length < 2 && Date.now() < by; pids = tree(panePid(h, 'sky'))) {
      await new Promise((ok) => setTimeout(ok, 50));
    }
    assert.ok(pids.length >= 2, `the agent runs clawmux wait under it: ${pids}`);
    m = ev.mark();
    assert.match(h.clawmux(['terminate', 'sky']), /sky: dead/);
    await ev.event('session_terminated', 'sky', m, (e) => e.reason === 'terminated');
    for (const pid of pids) assert.ok(!alive(pid), `process ${pid} ended`);
    // The session is closed once DEAD is recorded (a restart waits for that); a loaded machine takes a moment.
    const closedBy = Date.now() + 10000;
    for (;;) {
      try {
        h.tmux(['has-session', '-t', '=sky']);
      } catch {
        break;
      }
      assert.ok(Date.now() < closedBy, 'the tmux session is gone');
      await new Promise((ok) => setTimeout(ok, 50));
    }
    const history = await h.api('GET', '/api/history/sky');
    assert.deepEqual(history.messages.map((x) => x.text), ['hello sky', 'echo: hello sky']);

    // Restart resumes the same Claude conversation and comes back into the loop.
    m = ev.mark();
    assert.match(h.clawmux(['restart', 'sky']), /sky: starting/);
    await ev.state('sky', 'idle', m);
    entries = readLog(log);
    const resumed = entries.filter((e) => e.argv).at(-1);
    assert.ok(resumed.argv.includes('--resume') && resumed.argv.includes(session), `resumed ${session}: ${resumed.argv}`);
  } finally {
    ev.close();
    h.stop();
  }
});

test('a process that dies by itself is DEAD within 2 s, with its last lines shown', async () => {
  const hub = await hubWithStandIn();
  const ev = await hub.events();
  try {
    let m = ev.mark();
    hub.clawmux(['spawn', 'crashy']);
    await ev.state('crashy', 'idle', m);
    const root = panePid(hub, 'crashy');
    const pids = tree(root);
    assert.ok(pids.length >= 2, 'it runs clawmux wait');
    m = ev.mark();
    const killedAt = performance.now();
    process.kill(root, 'SIGKILL');
    const dead = await ev.state('crashy', 'dead', m, 2000);
    const ms = dead.receivedAt - killedAt;
    console.log(`# DEAD ${ms.toFixed(0)} ms after the process was killed`);
    assert.ok(ms < 2000);
    await ev.event('session_terminated', 'crashy', m, (e) => e.reason === 'exited');
    const note = await ev.event('system_text', 'crashy', m);
    assert.match(note.text, /crashy` stopped/);
    assert.match(note.text, /stand-in claude starting/, 'the last lines of its terminal are shown');
    const problem = await ev.event('session_problem', 'crashy', m);
    // How it ended is tmux's to tell, when it knows in time.
    assert.match(problem.problem, /^Stopped: its process (was killed by signal 9|ended)$/);
    // What it left running (its clawmux wait, orphaned) is ended by the hub. Node cannot wait on
    // another process's exit, so this looks every 50 ms, for at most 5 s.
    for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((ok) => setTimeout(ok, 50));
    assert.deepEqual(pids.filter(alive), [], 'no process of the dead agent is left');

    // /exit typed in its terminal ends it too.
    m = ev.mark();
    hub.clawmux(['restart', 'crashy']);
    await ev.state('crashy', 'idle', m);
    m = ev.mark();
    hub.clawmux(['interrupt', 'crashy']);
    hub.tmux(['send-keys', '-t', '=crashy:', '/exit', 'Enter']);
    await ev.state('crashy', 'dead', m, 2000);
  } finally {
    ev.close();
    hub.stop();
  }
});

test('agents survive a restart of the hub and are watched again', async () => {
  const hub = await hubWithStandIn();
  let ev = await hub.events();
  try {
    let m = ev.mark();
    hub.clawmux(['spawn', 'keeper']);
    hub.clawmux(['spawn', 'goner']);
    await ev.state('keeper', 'idle', m);
    await ev.state('goner', 'idle', m);
    ev.close();
    await hub.restart();
    // While the hub was away, goner's terminal was closed.
    ev = await hub.events();
    m = ev.mark();
    hub.tmux(['kill-session', '-t', '=goner']);
    await ev.state('goner', 'dead', m, 5000);
    const sessions = await hub.api('GET', '/api/sessions');
    assert.equal(sessions.find((s) => s.session_id === 'keeper').state, 'idle', 'keeper kept its state');
    // keeper is watched again: its end is noticed.
    process.kill(panePid(hub, 'keeper'), 'SIGKILL');
    await ev.state('keeper', 'dead', m, 2000);
  } finally {
    ev.close();
    hub.stop();
  }
});

test('an agent out of the loop is reminded, a bounded number of times, and the user sees it', async () => {
  const hub = await hubWithStandIn({ CLAWMUX_NUDGE_AFTER_INTERRUPT_MS: '300', CLAWMUX_SUBMIT_WAIT_MS: '500' });
  const ev = await hub.events();
  try {
    let m = ev.mark();
    // It takes an Enter close behind typed text for part of a paste, as Claude Code does: the reminder's
    // Enter comes apart from its text, and again when nothing shows it was submitted.
    hub.clawmux(['spawn', 'drifter', '--', '--standin-paste']);
    await ev.state('drifter', 'idle', m);
    // Escape stops Claude mid-wait with no hook; the hub reminds it and it comes back.
    m = ev.mark();
    hub.clawmux(['interrupt', 'drifter']);
    await ev.state('drifter', 'processing', m);
    const note = await ev.event('system_text', 'drifter', m, (e) => /reminded it \(1 of 3\)/.test(e.text));
    await ev.state('drifter', 'idle', m);
    assert.ok(note);
    // The interrupt fired no hook; the hub heard it from its own command and from the transcript.
    // A decision that changes nothing raises no event: the log is polled, briefly.
    let triggers = [];
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((ok) => setTimeout(ok, 20))) {
      triggers = (await decisions(hub, 'drifter')).map((d) => `${d.source} ${d.trigger}`);
      if (triggers.includes('transcript transcript:interrupted')) break;
    }
    assert.ok(triggers.includes('ui agent:interrupt'), triggers.join('\n'));
    assert.ok(triggers.includes('transcript transcript:interrupted'), triggers.join('\n'));

    // One that does not listen is reminded three times, then the user is asked to look.
    m = ev.mark();
    hub.clawmux(['spawn', 'deaf', '--', '--standin-deaf']);
    await ev.state('deaf', 'idle', m);
    hub.clawmux(['interrupt', 'deaf']);
    const gaveUp = await ev.event('system_text', 'deaf', m, (e) => /after 3 reminders/.test(e.text));
    const reminders = ev.seen.filter((e) => ev.seen.indexOf(e) >= m && e.type === 'system_text' && e.session_id === 'deaf' && /reminded it/.test(e.text));
    assert.equal(reminders.length, 3);
    assert.ok(ev.seen.indexOf(gaveUp) > ev.seen.indexOf(reminders[2]));
    await ev.event('session_problem', 'deaf', m, (e) => e.problem === 'Out of the loop');
    const sessions = await hub.api('GET', '/api/sessions');
    assert.equal(sessions.find((s) => s.session_id === 'deaf').problem, 'Out of the loop');
  } finally {
    ev.close();
    hub.stop();
  }
});

test('an interrupt as a permission dialog opens leaves no "needs you" behind, and the agent is reminded', async () => {
  // The stand-in replays what the real CLI does (fault injection: the timing cannot be forced on it).
  const hub = await hubWithStandIn({ CLAWMUX_NUDGE_AFTER_INTERRUPT_MS: '300', CLAWMUX_SUBMIT_WAIT_MS: '500' });
  const ev = await hub.events();
  try {
    let m = ev.mark();
    hub.clawmux(['spawn', 'racer']);
    await ev.state('racer', 'idle', m);
    m = ev.mark();
    await hub.api('POST', '/api/sessions/racer/messages', { text: 'race: touch never' });
    await ev.until((e) => ev.seen.indexOf(e) >= m && e.type === 'session_status' && e.session_id === 'racer' && e.needs?.need === 'permission', 10000, 'the late request');
    const needed = ev.seen.findLastIndex((e) => e.needs?.need === 'permission');
    // Its hook is killed without an answer: the need ends, and the agent, at its prompt, is reminded.
    await ev.until((e) => ev.seen.indexOf(e) > needed && e.type === 'session_status' && e.session_id === 'racer' && !e.needs, 10000, 'the need to end');
    await ev.event('system_text', 'racer', m, (e) => /reminded it \(1 of 3\)/.test(e.text));
    await ev.state('racer', 'idle', m);
  } finally {
    ev.close();
    hub.stop();
  }
});

test('an agent that does not start in time is reported with its terminal', async () => {
  const hub = await hubWithStandIn({ CLAWMUX_START_TIMEOUT_MS: '500' });
  const ev = await hub.events();
  try {
    const m = ev.mark();
    hub.clawmux(['spawn', 'slow', '--', '--standin-hang']);
    const note = await ev.event('system_text', 'slow', m, (e) => /has not started after/.test(e.text));
    assert.match(note.text, /Loading the model/);
    await ev.event('session_problem', 'slow', m, (e) => /Not started/.test(e.problem));
    assert.equal((await hub.api('GET', '/api/sessions'))[0].state, 'starting');
  } finally {
    ev.close();
    hub.stop();
  }
});

test('bad spawns are refused with a clear error and create nothing', async () => {
  const hub = await hubWithStandIn();
  const noTmux = await startHub({ env: { CLAWMUX_CLAUDE: STAND_IN, CLAWMUX_TMUX: '/nonexistent/tmux' } });
  const fails = (h, args) => {
    try {
      h.clawmux(args);
    } catch (e) {
      return String(e.stderr);
    }
    assert.fail(`clawmux ${args.join(' ')} succeeded`);
  };
  try {
    assert.match(fails(hub, ['spawn', '../evil']), /not a plain identifier/);
    assert.match(fails(hub, ['spawn', 'nocl', '--command', '/nonexistent/claude']), /claude_missing/);
    assert.match(fails(hub, ['spawn', 'nodir', '--work-dir', '/proc/1/nope/deeper']), /cannot create the work folder/);
    assert.match(fails(noTmux, ['spawn', 'notmux']), /tmux is not installed/);
    for (const h of [hub, noTmux]) {
      assert.deepEqual(await h.api('GET', '/api/sessions'), []);
      for (const sub of ['agents', 'launch']) {
        const dir = join(h.data, sub);
        assert.deepEqual(existsSync(dir) ? readdirSync(dir) : [], [], `nothing left in ${dir}`);
      }
    }
    // An agent that runs on its own cannot be terminated by ClawMux; a spawned one twice is refused.
    hub.addAgent('own');
    assert.match(fails(hub, ['terminate', 'own']), /runs on its own/);
    hub.clawmux(['spawn', 'twice']);
    assert.match(fails(hub, ['spawn', 'twice']), /already exists/);
    assert.match(fails(hub, ['attach', 'own']), /has no terminal/);
  } finally {
    hub.stop();
    noTmux.stop();
  }
});

test('a work folder is a path, never a tmux format: #(...) in its name runs nothing', async () => {
  const hub = await hubWithStandIn();
  const ev = await hub.events();
  try {
    const pwned = join(hub.dir, 'pwned');
    const folder = join(hub.dir, `work#(touch ${pwned})#{pane_pid}`);
    const m = ev.mark();
    hub.clawmux(['spawn', 'odd', '--work-dir', folder, '--trust-folder']);
    await ev.state('odd', 'idle', m);
    assert.equal(hub.tmux(['display-message', '-p', '-t', '=odd:', '#{pane_current_path}']).trim(), folder);
    assert.ok(!existsSync(pwned), 'the folder name ran a command');
  } finally {
    ev.close();
    hub.stop();
  }
});

test('the clawmux binary the agents use is the one that spawned them', () => {
  assert.ok(existsSync(BIN));
  assert.match(execFileSync(BIN, ['spawn', '--help'], { encoding: 'utf8' }), /--work-dir/);
});
