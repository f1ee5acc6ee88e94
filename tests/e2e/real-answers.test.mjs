// Answering what a real agent needs, from the app: the real Claude Code CLI (pinned, from npm) in tmux with
// ClawMux's settings, asking through its PermissionRequest hook; the answer given with the `answer`
// command every client uses; the scripted model sees what Claude Code made of it.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, openUi, startHub, withTestModel } from './harness.mjs';
import { asker, useClaudeAndBrowser, claudeEnv, prepareHome, spawnSky, startModel } from './real-claude.mjs';

const real = useClaudeAndBrowser();

async function realHub(model) {
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: real.claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  return hub;
}

/** The request the app shows for `agent`, once its status carries one. */
async function request(ev, mark, ms = 60000) {
  const e = await ev.until((x) => ev.seen.indexOf(x) >= mark && x.type === 'session_status' && x.session_id === 'sky' && x.needs?.request, ms, 'a request under needs');
  return e.needs;
}

test('a real agent\'s permission, denial and question are answered from the app, once', async () => {
  const model = await startModel(asker());
  const hub = await realHub(model);
  const ev = await hub.events();
  const work = join(hub.data, 'agents', 'sky');
  try {
    let m = ev.mark();
    // The permission mode of the spawn (2.1.330 starts in auto mode otherwise, which asks through no hook).
    hub.clawmux(['spawn', 'sky', '--permission-mode', 'default']);
    await ev.state('sky', 'idle', m, 60000);

    // Allow: the command runs, and the agent goes on.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: `do: touch ${join(work, 'allowed')}` });
    const allow = await request(ev, m);
    assert.equal(allow.need, 'permission');
    assert.equal(allow.request.tool_name, 'Bash');
    assert.match(allow.request.tool_input.command, /touch .*allowed/);
    const sessions = await hub.api('GET', '/api/sessions');
    assert.equal(sessions.find((s) => s.session_id === 'sky').needs.request.id, allow.request.id, 'the list carries it too');
    const clicked = performance.now();
    assert.deepEqual(await hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: allow.request.id, decision: 'allow' }), {});
    const shown = ev.seen.findIndex((x) => x.needs?.request?.id === allow.request.id);
    const cleared = await ev.until((x) => ev.seen.indexOf(x) > shown && x.type === 'session_status' && x.session_id === 'sky' && !x.needs?.request, 30000, 'the request closed');
    console.log(`click to the request closing on the feed: ${(cleared.receivedAt - clicked).toFixed(1)} ms`);
    await ev.state('sky', 'idle', m, 60000);
    assert.ok(existsSync(join(work, 'allowed')), 'the allowed command ran');
    // A second click answers nothing: the request is gone.
    await assert.rejects(
      hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: allow.request.id, decision: 'deny' }),
      /409 .*not_pending/,
    );

    // Answered in the terminal instead: the request closes by itself, and a click then decides nothing.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: `do: touch ${join(work, 'in-the-terminal')}` });
    const typed = await request(ev, m);
    const shownAt = ev.seen.findIndex((x) => x.needs?.request?.id === typed.request.id);
    // Keys sent in a dialog's first moments are dropped: press Enter (its default, "Yes") until it takes.
    const closed = ev.until((x) => ev.seen.indexOf(x) > shownAt && x.type === 'session_status' && x.session_id === 'sky' && !x.needs?.request, 30000, 'the request closed by the terminal');
    for (let i = 0; i < 20 && !existsSync(join(work, 'in-the-terminal')); i++) {
      execFileSync('tmux', ['-S', join(hub.data, 'tmux.sock'), 'send-keys', '-t', '=sky:', 'Enter']);
      await new Promise((ok) => setTimeout(ok, 500));
    }
    await closed;
    assert.ok(existsSync(join(work, 'in-the-terminal')), 'the terminal\'s answer ran the command');
    await assert.rejects(
      hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: typed.request.id, decision: 'deny' }),
      /409 .*not_pending/,
    );
    await ev.state('sky', 'idle', m, 60000);

    // Deny, with a reason Claude receives.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: `do: touch ${join(work, 'denied')}` });
    const deny = await request(ev, m);
    await hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: deny.request.id, decision: 'deny', message: 'not on a Friday' });
    const told = await ev.event('assistant_text', 'sky', m, (e) => /not on a Friday/.test(e.text), 60000);
    assert.match(told.text, /result:/);
    assert.equal(existsSync(join(work, 'denied')), false, 'the denied command did not run');

    // A question: the user's choice reaches Claude as the tool's answer.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'ask: Which color?' });
    const question = await request(ev, m);
    assert.equal(question.need, 'answer');
    assert.deepEqual(question.request.tool_input.questions[0].options.map((o) => o.label), ['Blue', 'Green']);
    await hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: question.request.id, decision: 'allow', answers: { 'Which color?': 'Green' } });
    const answered = await ev.event('assistant_text', 'sky', m, (e) => /Green/.test(e.text), 60000);
    assert.match(answered.text, /result:/);
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});

test('a real agent\'s plan is shown from where Claude Code keeps it, sent back with feedback, then approved', async () => {
  const model = await startModel(asker());
  const hub = await realHub(model);
  const ev = await hub.events();
  try {
    let m = ev.mark();
    hub.clawmux(['spawn', 'sky', '--permission-mode', 'plan']);
    await ev.state('sky', 'idle', m, 60000);

    // The PermissionRequest carries no plan (2.1.330 sends `{}`): the card shows the plan file Claude wrote.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'plan: paint the fence' });
    const first = await request(ev, m);
    assert.equal(first.need, 'plan_approval');
    assert.match(first.request.tool_input.plan, /paint the fence/);
    await hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: first.request.id, decision: 'deny', message: 'use blue paint' });
    await ev.event('assistant_text', 'sky', m, (e) => /use blue paint/.test(e.text), 60000);

    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'plan: paint the fence blue' });
    const second = await request(ev, m);
    assert.match(second.request.tool_input.plan, /paint the fence blue/);
    await hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: second.request.id, decision: 'allow', mode: 'acceptEdits' });
    const approved = await ev.event('assistant_text', 'sky', m, (e) => /result:/.test(e.text), 60000);
    assert.match(approved.text, /approved/i);
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});

test('the user answers a real agent from the page: the card shows what it will do, and its buttons decide', async () => {
  const model = await startModel(asker());
  const hub = await realHub(model);
  const ev = await hub.events();
  const work = join(hub.data, 'agents', 'sky');
  const { page, errors } = await openUi(real.browser, hub);
  try {
    await spawnSky(hub, ev);
    let m;
    await page.click('[data-agent="sky"]');

    // A permission: the command on the card; Allow runs it.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: `do: touch ${join(work, 'from-the-page')}` });
    await page.waitForSelector('#request:not([hidden]) button.allow', { timeout: 60000 });
    assert.match(await page.textContent('#request pre'), /touch .*from-the-page/);
    assert.match(await page.textContent('[data-agent="sky"]'), /Needs you|Permission/);
    await page.screenshot({ path: join(ARTIFACTS, 'request-permission.png') });
    await page.click('#request button.allow');
    await page.waitForSelector('#request', { state: 'hidden', timeout: 30000 });
    await ev.state('sky', 'idle', m, 60000);
    assert.ok(existsSync(join(work, 'from-the-page')), 'allowed from the page, it ran');

    // Deny with a reason typed on the card: Claude reads it.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: `do: touch ${join(work, 'refused-on-the-page')}` });
    await page.waitForSelector('#request:not([hidden]) button.deny', { timeout: 60000 });
    await page.fill('#request input.deny-reason', 'wrong folder');
    await page.click('#request button.deny');
    await ev.event('assistant_text', 'sky', m, (e) => /wrong folder/.test(e.text), 60000);
    assert.equal(existsSync(join(work, 'refused-on-the-page')), false);

    // A question: its options on the card; the choice reaches Claude.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'ask: Which sea?' });
    await page.waitForSelector('#request:not([hidden]) fieldset.question', { timeout: 60000 });
    await page.screenshot({ path: join(ARTIFACTS, 'request-question.png') });
    await page.check('#request input[value="Blue"]');
    await page.click('#request button.allow');
    await ev.event('assistant_text', 'sky', m, (e) => /Blue/.test(e.text), 60000);
    await page.waitForSelector('#request', { state: 'hidden', timeout: 30000 });
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    ev.close();
    hub.stop();
    await model.close();
  }
});

test('a folder Claude Code was never trusted with: the page asks first, and the agent starts past the dialog', async () => {
  const model = await startModel(asker());
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: real.claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, []); // trusts nothing
  const project = join(hub.dir, 'project');
  const ev = await hub.events();
  const { page, errors } = await openUi(real.browser, hub);
  try {
    await page.click('#new-agent');
    await page.fill('#spawn-name', 'fresh');
    await page.fill('#spawn-dir', project);
    await page.selectOption('#spawn-mode', 'default');
    await page.click('#spawn-form button[type="submit"]');
    await page.waitForSelector('#spawn-trust:not([hidden])');
    assert.match(await page.textContent('#spawn-hint'), /not been trusted with .*project/);
    assert.equal(existsSync(project), false, 'nothing was made before the user said yes');
    const m = ev.mark();
    await page.click('#spawn-trust');
    await ev.state('fresh', 'idle', m, 60000);
    const config = JSON.parse(readFileSync(join(hub.dir, '.claude.json'), 'utf8'));
    assert.equal(config.projects[project].hasTrustDialogAccepted, true);
    assert.equal(config.hasCompletedOnboarding, true, 'the rest of Claude Code\'s file is kept');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    ev.close();
    hub.stop();
    await model.close();
  }
});

test('a permission held longer than every idle limit on its way is answered from the window, a phone and by voice', async () => {
  // Every idle limit on the way is two seconds (the agent's relay, the hub's port); each request waits
  // for the user three times that long, as one read from a phone's push minutes later does.
  const IDLE = 2000;
  const model = await startModel(asker());
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: real.claude, CLAWMUX_IDLE_TIMEOUT_MS: String(IDLE), ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  withTestModel(hub.data);
  await hub.api('POST', '/api/voice/settings', { speech_to_text: 'device', local_model: 'tiny.en' });
  const ev = await hub.events();
  const work = join(hub.data, 'agents', 'sky');
  // A paired phone's token, redeemed as the phone's page redeems it.
  hub.clawmux(['phone', 'on']);
  const code = /#pair=([0-9a-f]{32})/.exec(hub.clawmux(['phone', 'pair']))[1];
  const paired = await (await fetch(`http://127.0.0.1:${hub.port}/api/phone/pair`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code, name: 'Pixel' }),
  })).json();
  const answer = (token, id) => fetch(`http://127.0.0.1:${hub.port}/api/command`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ command: 'answer', session_id: 'sky', request_id: id, decision: 'allow' }),
  });
  const byVoice = async () => {
    const file = join(hub.dir, 'allow.wav');
    execFileSync('espeak-ng', ['-w', file, 'Allow.']);
    const r = await fetch(`http://127.0.0.1:${hub.port}/api/voice/hear?recording=allow-${Date.now()}&shown=sky`, {
      method: 'POST', headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'audio/wav' }, body: readFileSync(file),
    });
    return r.json();
  };
  try {
    let m = ev.mark();
    hub.clawmux(['spawn', 'sky', '--permission-mode', 'default']);
    await ev.state('sky', 'idle', m, 60000);
    for (const [n, how] of [[1, 'window'], [2, 'phone'], [3, 'voice']]) {
      m = ev.mark();
      await hub.api('POST', '/api/sessions/sky/messages', { text: `do: touch ${join(work, `held-${how}`)}` });
      const asked = await request(ev, m);
      const opened = Date.now();
      // Three idle limits of the user's silence, while Claude Code's hook waits on its connection.
      await new Promise((ok) => setTimeout(ok, 3 * IDLE));
      const still = (await hub.api('GET', '/api/sessions')).find((s) => s.session_id === 'sky');
      assert.equal(still.needs?.request?.id, asked.request.id, `${how}: still open after ${Date.now() - opened} ms`);
      if (how === 'window') assert.equal((await answer(hub.token, asked.request.id)).status, 200);
      if (how === 'phone') assert.equal((await answer(paired.token, asked.request.id)).status, 200);
      if (how === 'voice') {
        let heard = await byVoice();
        // The small test model may need "Allow." said again (asked again, never approved wrongly).
        for (let i = 0; i < 3 && heard.done !== 'answered'; i++) heard = await byVoice();
        assert.equal(heard.done, 'answered', JSON.stringify(heard));
      }
      await ev.state('sky', 'idle', m, 60000);
      assert.ok(existsSync(join(work, `held-${how}`)), `${how}: the command allowed after ${n * 3 * IDLE / 1000} s ran`);
    }
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});
