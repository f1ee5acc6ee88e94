// The indicator explains itself, in Chromium against the real hub: a click on an agent's indicator opens
// the explanation, one test per field (each fails when its field is wrong or missing); "Dismiss" for a
// need a notice alone raised; "This looks wrong" previews a redacted case file before anything is
// written, saves it, and `clawmux replay` says it reproduces what was shown. Each test has agents of its
// own, so that it runs alone (`--test-name-pattern`) as it runs among the others.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ARTIFACTS, BIN, openBrowser, openUi, startHub } from './harness.mjs';

let browser;
let hub;
let ui;
before(async () => {
  browser = await openBrowser();
  hub = await startHub();
  ui = await openUi(browser, hub);
});
after(async () => {
  assert.deepEqual(ui?.errors ?? [], []);
  await browser?.close();
  hub?.stop();
});

const field = (name) => ui.page.textContent(`#explain [data-field="${name}"]`);

/** Registers `name` (it runs on its own) and puts it in its `clawmux wait`: Idle. */
async function idleAgent(name) {
  hub.addAgent(name);
  await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: `toolu_${name}_wait`, tool_input: { command: 'clawmux wait' } }, name);
  const wait = hub.wait(name);
  await ui.page.waitForSelector(`[data-agent="${name}"][data-state="idle"]`);
  return wait;
}

/** Registers `name` and takes it out of its wait (the wait ends): Working, with no tool running. */
async function workingAgent(name) {
  const wait = await idleAgent(name);
  wait.process.kill('SIGKILL');
  await ui.page.waitForSelector(`[data-agent="${name}"][data-state="processing"]`);
}

/** Clicks the agent's indicator and waits for the explanation of it. */
async function explain(name) {
  await ui.page.click(`[data-agent="${name}"] .dot`);
  await ui.page.waitForSelector(`#explain[data-agent="${name}"] [data-field="state"]`);
}

const hook = (name, payload) => hub.api('POST', '/api/hooks/tool-status', payload, name);

test('the state and since when', async () => {
  await idleAgent('sky');
  await explain('sky');
  assert.equal(await field('state'), 'sky: Idle');
  const since = await ui.page.evaluate(async () => (await window.clawmux.backend.command({ command: 'explain', session_id: 'sky' })).since);
  const clock = new Date(since).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  assert.match(await field('since'), new RegExp(`^Since ${clock} \\(idle\\): Running clawmux wait$`));
  await ui.page.screenshot({ path: join(ARTIFACTS, 'explain-idle.png') });
});

test('the event and source that set it, in words', async () => {
  await idleAgent('cloud');
  await explain('cloud');
  const setBy = await field('set-by');
  assert.match(setBy, /^Set by: clawmux wait connected: the agent waits for a message, reported by the agent's clawmux wait at /);
});

test('what will end it', async () => {
  await idleAgent('hail');
  await explain('hail');
  const ends = await ui.page.$$eval('#explain [data-field="ends"] li', (lis) => lis.map((l) => l.textContent));
  assert.deepEqual(ends, ['a message: its clawmux wait takes it and ends (then Working)', 'its process ending (then Offline)']);
});

test('for Starting: what the hub waits for and until when', async () => {
  // A program that never runs clawmux wait: the agent stays Starting until the hub's deadline.
  const never = join(hub.dir, 'never-waits');
  writeFileSync(never, '#!/bin/sh\nexec sleep 600\n');
  chmodSync(never, 0o755);
  hub.clawmux(['spawn', 'dawn', '--command', never]);
  await ui.page.waitForSelector('[data-agent="dawn"][data-state="starting"]');
  await explain('dawn');
  assert.equal(await field('state'), 'dawn: Starting');
  const ends = await field('ends');
  assert.match(ends, /its first clawmux wait connecting \(then Idle\)/);
  assert.match(ends, /if no clawmux wait connects in time, the hub reports it did not start/);
  const e = await ui.page.evaluate(async () => window.clawmux.backend.command({ command: 'explain', session_id: 'dawn' }));
  assert.equal(e.until - e.since, 90_000, 'the start timeout after the start');
  const clock = new Date(e.until).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  assert.equal(await field('until'), `The hub waits for its first clawmux wait until ${clock}.`);
  hub.clawmux(['terminate', 'dawn']);
});

test('"needs you": the tool call it waits on and what closes it', async () => {
  const wait = await idleAgent('rain');
  wait.process.kill('SIGKILL');
  await ui.page.waitForSelector('[data-agent="rain"][data-state="processing"]');
  await hook('rain', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'toolu_push_1', tool_input: { command: 'git push origin main', description: 'push the branch' } });
  await hook('rain', { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'git push origin main', description: 'push the branch' } });
  await ui.page.waitForSelector('[data-agent="rain"][data-needs="permission"]');
  // The "needs you" line opens it too.
  await ui.page.click('[data-agent="rain"] .needs');
  await ui.page.waitForSelector('#explain[data-agent="rain"] [data-field="needs"]');
  assert.equal(await field('state'), 'rain: Needs you');
  assert.equal(await ui.page.textContent('#explain [data-field="needs"] h4'), 'Needs you: Permission: Running push the branch');
  assert.equal(await field('waits-on'), 'It waits on tool call toolu_push_1 (Bash).');
  assert.match(await field('needs-set-by'), /Raised by: Claude Code opened a permission dialog \(PermissionRequest\) \(Bash\), reported by a Claude Code hook/);
  const ends = await ui.page.$$eval('#explain [data-field="needs-ends"] li', (lis) => lis.map((l) => l.textContent));
  assert.equal(ends[0], 'the end of tool call toolu_push_1 (Bash): its PostToolUse or PostToolUseFailure, or its tool_result in the transcript');
  assert.equal(await ui.page.$('#explain [data-action="dismiss"]'), null, 'a request is not dismissed, it is answered');
  await ui.page.screenshot({ path: join(ARTIFACTS, 'explain-needs-you.png') });
  // It follows the agent: the tool call ends, the panel explains again.
  await hook('rain', { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_use_id: 'toolu_push_1' });
  await ui.page.waitForFunction(() => document.querySelector('#explain [data-field="state"]')?.textContent === 'rain: Working');
});

test('the latest decisions, ignored ones with their reasons in words', async () => {
  await workingAgent('fog');
  await explain('fog');
  await hook('fog', { hook_event_name: 'PreToolUse', tool_name: 'Read', agent_id: 'sub-1', tool_input: { file_path: '/x' } });
  await hook('fog', { hook_event_name: 'PreCompact', trigger: 'auto' });
  await ui.page.waitForFunction(() => document.querySelector('#explain [data-field="state"]')?.textContent === 'fog: Working'
    && document.querySelector('#explain [data-field="recent"] li .what')?.textContent.startsWith('compaction began'));
  const rows = await ui.page.$$eval('#explain [data-field="recent"] li', (lis) => lis.map((l) => ({
    outcome: l.className, what: l.querySelector('.what').textContent, result: l.querySelector('.result').textContent,
  })));
  assert.deepEqual(rows[0], { outcome: 'outcome-moved', what: 'compaction began (PreCompact) (trigger=auto)', result: 'processing → compacting' });
  assert.deepEqual(rows[1], { outcome: 'outcome-suppressed', what: 'Claude Code was about to run a tool (PreToolUse)', result: "ignored: a subagent's event" });
});

test('a "needs you" a notice alone raised can be dismissed, and that is recorded', async () => {
  await workingAgent('mist');
  await hook('mist', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'toolu_x', tool_input: { command: 'make' } });
  await hook('mist', { hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash', notification_type: 'permission_prompt' });
  await ui.page.waitForSelector('[data-agent="mist"][data-needs="permission"]');
  await explain('mist');
  await ui.page.waitForSelector('#explain [data-action="dismiss"]');
  assert.match(await field('needs-ends'), /dismissing it: a notice alone raised it, and no later hook closes it/);
  await ui.page.click('#explain [data-action="dismiss"]');
  await ui.page.waitForSelector('[data-agent="mist"]:not(.needs-you)');
  await ui.page.waitForFunction(() => document.querySelector('#explain [data-field="recent"] li .what')?.textContent.startsWith('the user dismissed the notice'));
  assert.match(await ui.page.textContent('#explain [data-field="recent"] li .result'), /no longer needs you \(permission\)/);
  assert.equal(await ui.page.$('#explain [data-field="needs"]'), null);
  // Dismissing again changes nothing and says why.
  const refused = await ui.page.evaluate(() => window.clawmux.backend.command({ command: 'dismiss', session_id: 'mist' }).then(() => 'done', (e) => e.code));
  assert.equal(refused, 'not_dismissable');
});

test('"This looks wrong" shows the redacted file before anything is written, saves it, and it replays', async () => {
  const secret = 'deploy the payroll service to production';
  await workingAgent('sleet');
  await hook('sleet', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'toolu_secret', tool_input: { command: `./deploy.sh ${secret}`, description: secret } });
  await hook('sleet', { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: `./deploy.sh ${secret}` } });
  await ui.page.waitForSelector('[data-agent="sleet"][data-needs="permission"]');
  await explain('sleet');
  const reports = join(hub.data, 'reports');
  await ui.page.click('#explain .explain-wrong');
  await ui.page.waitForFunction(() => document.querySelector('#explain [data-field="report-preview"]')?.textContent.includes('"case"'));
  let preview = await field('report-preview');
  assert.ok(!preview.includes('payroll'), 'no message text in the preview');
  assert.ok(preview.includes('‹redacted›'));
  assert.match(await field('report-summary'), /\d+ texts redacted \(messages, tool inputs, paths\)/);
  assert.equal(existsSync(reports), false, 'nothing written before Save');
  await ui.page.selectOption('#report-right', 'idle');
  await ui.page.check('#report-keep');
  await ui.page.waitForFunction(() => document.querySelector('#explain [data-field="report-preview"]').textContent.includes('payroll'));
  await ui.page.uncheck('#report-keep');
  await ui.page.waitForFunction(() => !document.querySelector('#explain [data-field="report-preview"]').textContent.includes('payroll'));
  preview = await field('report-preview');
  await ui.page.screenshot({ path: join(ARTIFACTS, 'explain-report.png') });
  await ui.page.click('#explain [data-action="saveReport"]');
  await ui.page.waitForFunction(() => document.querySelector('#explain [data-field="report-saved"]')?.textContent.startsWith('Saved: '));
  const path = /^Saved: (\S+)\./.exec(await field('report-saved'))[1];
  const text = readFileSync(path, 'utf8');
  assert.equal(text, preview, 'what was saved is what was shown');
  assert.ok(!text.includes('payroll') && !text.includes('deploy.sh'));
  assert.equal(statSync(path).mode & 0o777, 0o600);
  // Replayed: it reproduces what was shown, and what the user said was right is its expectation.
  let out = '';
  try {
    execFileSync(BIN, ['replay', path], { encoding: 'utf8' });
    assert.fail('the expectation (idle) does not hold');
  } catch (e) {
    out = e.stdout;
  }
  assert.match(out, /reproduces what was shown: \{"state":"processing","needs":"permission"/);
  assert.match(out, /FAIL want \{"state":"idle"/);
});
