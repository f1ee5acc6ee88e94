// Hooks with no process: a spawned agent's Claude Code (the real CLI, pinned, from npm) posts its hooks to
// a relay of the agent's own over HTTP, with the agent's key; the relay forwards them to the hub. What the
// transcript records of each hook shows which way it went.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, within } from './harness.mjs';
import { claudeBinary, claudeEnv, prepareHome, startModel } from './real-claude.mjs';

let claude;
before(() => { claude = claudeBinary(); });

/** A gate the model waits at: `open()` lets it on. */
function gate() {
  let open;
  const passed = new Promise((ok) => { open = ok; });
  return { open, passed };
}

/**
 * The model: `read: N` reads a small file N times, then says so and waits; `gated: N` does the same but
 * waits at `gates.first` before its second read and at `gates.second` before its last; `stopper` reads once,
 * then has the test put a message in the inbox (`onStopper`) and ends its turn. Anything else: it waits.
 */
function reader(folder, { gates = {}, onStopper } = {}) {
  let plan = null;
  return async ({ last }) => {
    const msg = /\[MSG id:(msg-[0-9a-f]{8}) from:user\] (read|gated): (\d+)/.exec(last);
    if (msg) plan = { kind: msg[2], left: Number(msg[3]), done: 0 };
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] stopper/.test(last)) plan = { kind: 'stopper', left: 1, done: 0 };
    const read = { tool: { name: 'Read', input: { file_path: join(folder(), 'small.txt') } } };
    if (plan && plan.left > 0) {
      if (plan.kind === 'gated' && plan.done === 1) await gates.first.passed;
      if (plan.kind === 'gated' && plan.left === 1) await gates.second.passed;
      plan.left -= 1;
      plan.done += 1;
      return read;
    }
    if (plan?.kind === 'stopper') {
      plan = null;
      await onStopper();
      return { text: 'first done' };
    }
    if (plan) {
      plan = null;
      return { tool: { name: 'Bash', input: { command: `clawmux send --to user 'read them'`, description: 'report' } } };
    }
    return { tool: { name: 'Bash', input: { command: 'clawmux wait', description: 'wait for the next message' } } };
  };
}

async function realHub(model, names) {
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, names.map((n) => join(hub.data, 'agents', n)));
  return hub;
}

/** The HTTP hook of `event` in `agent`'s settings. */
function httpHook(hub, agent, event) {
  const file = join(hub.data, 'launch', agent, 'settings.json');
  return JSON.parse(readFileSync(file, 'utf8')).hooks[event][0].hooks[0];
}

/** Every hook attachment the transcripts under this HOME recorded. */
function hookRecords(hub) {
  const projects = join(hub.dir, '.claude', 'projects');
  const found = [];
  for (const dir of existsSync(projects) ? readdirSync(projects) : []) {
    for (const file of readdirSync(join(projects, dir)).filter((f) => f.endsWith('.jsonl'))) {
      for (const line of readFileSync(join(projects, dir, file), 'utf8').split('\n')) {
        if (!line.includes('"attachment"')) continue;
        const a = JSON.parse(line).attachment;
        if (/^hook_/.test(a?.type ?? '')) found.push(a);
      }
    }
  }
  return found;
}

async function post(url, key, body) {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(key ? { 'ClawMux-Hook-Key': key } : {}) }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

test('a real agent\'s hooks reach the hub over HTTP through its relay, with its key and no process', async () => {
  let hub;
  const gates = { first: gate(), second: gate() };
  const model = await startModel(reader(() => join(hub.data, 'agents', 'sky'), {
    gates,
    // The message arrives while Claude still works: Stop must not let it stop with the message unread.
    onStopper: () => hub.api('POST', '/api/sessions/sky/messages', { text: 'the second message' }),
  }));
  hub = await realHub(model, ['sky', 'two']);
  let ev = await hub.events();
  try {
    let m = ev.mark();
    hub.clawmux(['spawn', 'sky', '--permission-mode', 'default']);
    hub.clawmux(['spawn', 'two', '--permission-mode', 'default']);
    await ev.state('sky', 'idle', m, 60000);
    await ev.state('two', 'idle', m, 60000);
    const work = join(hub.data, 'agents', 'sky');
    writeFileSync(join(work, 'small.txt'), 'hello\n');

    // The settings: every hook but SessionStart posts to the agent's relay, with its key; 0600.
    const settings = join(hub.data, 'launch', 'sky', 'settings.json');
    assert.equal(statSync(settings).mode & 0o777, 0o600);
    const pre = httpHook(hub, 'sky', 'PreToolUse');
    assert.equal(pre.type, 'http');
    assert.match(pre.url, /^http:\/\/127\.0\.0\.1:\d+\/hook\/tool-status$/);
    assert.notEqual(new URL(pre.url).port, String(hub.port), 'the relay\'s port, not the hub\'s');
    assert.equal(httpHook(hub, 'sky', 'SessionStart').type, 'command');
    const key = pre.headers['clawmux-hook-key'];
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.ok(!readFileSync(settings, 'utf8').includes(hub.token), 'the hub\'s token is not in the agent\'s reach');

    // Tool calls: their hooks went over HTTP (the transcript names the URL), and the hub saw them.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'read: 3' });
    await ev.state('sky', 'processing', m, 30000);
    await ev.event('assistant_text', 'sky', m, (e) => /read them/.test(e.text), 60000);
    const posted = hookRecords(hub).filter((a) => a.hookEvent === 'PostToolUse' && /\/hook\/tool-status$/.test(a.command ?? ''));
    assert.ok(posted.length >= 3, `PostToolUse went over HTTP: ${JSON.stringify(hookRecords(hub).slice(-3))}`);
    const events = await (await fetch(`http://127.0.0.1:${hub.port}/api/sessions/sky/log/events`, { headers: { Authorization: `Bearer ${hub.token}` } })).text();
    const kinds = events.trim().split('\n').map((l) => JSON.parse(l)).map((e) => e.kind ?? e.event ?? JSON.stringify(e));
    assert.ok(kinds.filter((k) => /PreToolUse/.test(k)).length >= 3, `PreToolUse reached the hub: ${kinds.slice(-8)}`);
    assert.ok(kinds.filter((k) => /PostToolUse/.test(k)).length >= 3, `PostToolUse reached the hub: ${kinds.slice(-8)}`);
    await ev.state('sky', 'idle', m, 60000);

    // Stop while a message waits: Claude is kept working and given it.
    m = ev.mark();
    const before = model.turns.length;
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'stopper' });
    await within((async () => {
      while (!model.turns.slice(before).some((t) => /the second message/.test(t.last))) await new Promise((ok) => setTimeout(ok, 100));
    })(), 60000, 'the waiting message handed over at Stop');
    const fed = model.turns.slice(before).find((t) => /the second message/.test(t.last)).last;
    assert.match(fed, /Stop hook feedback/);
    assert.match(fed, /http:\/\/127\.0\.0\.1:\d+\/hook\/stop/, 'Stop went over HTTP, to the relay');
    await ev.state('sky', 'idle', m, 60000);

    // Keys: this agent's own only; another agent's and none are refused, and change nothing.
    const twoKey = httpHook(hub, 'two', 'PreToolUse').headers['clawmux-hook-key'];
    assert.notEqual(twoKey, key);
    const harmless = { session_id: 'x', transcript_path: '/nonexistent', cwd: work, hook_event_name: 'SomeFutureEvent' };
    assert.equal((await post(pre.url, twoKey, harmless)).status, 401, 'another agent\'s key');
    assert.equal((await post(pre.url, null, harmless)).status, 401, 'no key');
    assert.equal((await post(pre.url.replace('tool-status', 'observe'), key, harmless)).status, 404);
    assert.deepEqual(await post(pre.url, key, harmless), { status: 200, body: {} });

    // The hub down under a working agent: nothing in its terminal or transcript, and the state right after.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'gated: 4' });
    await ev.state('sky', 'processing', m, 30000);
    // A failed hook (refused, cancelled, timed out): anything but a success or Stop's intended block.
    const failed = () => hookRecords(hub).filter((a) => !['hook_success', 'hook_blocking_error'].includes(a.type));
    assert.deepEqual(failed(), []);
    ev.close?.();
    await hub.halt();
    gates.first.open();
    // Two reads while the hub is down: their hooks are answered by the relay alone.
    await within((async () => {
      while (!(hookRecords(hub).filter((a) => a.hookEvent === 'PostToolUse').length >= posted.length + 1 + 3)) await new Promise((ok) => setTimeout(ok, 100));
    })(), 30000, 'reads while the hub is down');
    const screen = hub.tmux(['capture-pane', '-p', '-t', '=sky:']);
    assert.doesNotMatch(screen, /hook error|ECONNREFUSED|hook.*fail/i, 'nothing shown in the terminal');
    await hub.resume();
    ev = await hub.events();
    m = ev.mark();
    gates.second.open();
    await ev.state('sky', 'processing', m, 30000);
    await ev.state('sky', 'idle', m, 60000);
    assert.deepEqual(failed(), [], 'no hook error recorded');

    // An ended agent's key opens nothing: its relay is gone with it, and no other door takes it.
    await hub.api('POST', '/api/sessions/sky/terminate');
    await within((async () => {
      for (;;) {
        try { await post(pre.url, key, harmless); } catch { return; }
        await new Promise((ok) => setTimeout(ok, 100));
      }
    })(), 10000, 'the relay ends with its agent');
    const twoUrl = httpHook(hub, 'two', 'PreToolUse').url;
    assert.equal((await post(twoUrl, key, harmless)).status, 401, 'at another agent\'s relay');
    const atHub = await fetch(`http://127.0.0.1:${hub.port}/api/hooks/tool-status`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'ClawMux-Hook-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(harmless) });
    assert.equal(atHub.status, 401, 'at the hub\'s port');
  } catch (e) {
    console.log('states', JSON.stringify(ev.seen.filter((x) => x.type === 'session_status').map((x) => `${x.session_id}:${x.state}`)));
    console.log('turns', JSON.stringify(model.turns.map((t) => t.last.slice(0, 200))));
    throw e;
  } finally {
    hub.stop();
    await model.close();
  }
});
