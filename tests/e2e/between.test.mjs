// Between agents, in Chromium against the real hub and the real `clawmux` run as two agents: the
// "Between agents" view lists the thread, shows each message's delivery as it moves (queued, handed over
// by moon's wait, seen once moon's transcript has it, answered), keeps hostile text as text, and lets the
// user close a thread that loops (the agents are then refused) and reopen it, and step in with a word of
// their own; the user names a lead there and takes the right back.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openBrowser, openUi, startHub } from './harness.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

/** The delivery the view shows for the message whose text starts with `text`. */
function deliveryOf(page, text) {
  return page.evaluate((t) => [...document.querySelectorAll('#between-messages .between-message')]
    .find((li) => li.querySelector('.text').textContent.startsWith(t))
    ?.querySelector('.delivery').textContent ?? null, text);
}

async function showsDelivery(page, text, words) {
  await page.waitForFunction(([t, w]) => [...document.querySelectorAll('#between-messages .between-message')]
    .some((li) => li.querySelector('.text').textContent.startsWith(t) && li.querySelector('.delivery').textContent === w), [text, words]);
}

test('the view follows a message between agents to its answer, and the user closes and reopens the thread', async () => {
  const hub = await startHub();
  try {
    hub.addAgent('sky');
    hub.addAgent('moon');
    // Moon's transcript, named to the hub by a hook as Claude Code's hooks name it.
    const transcript = join(hub.dir, 'moon-transcript.jsonl');
    writeFileSync(transcript, '');
    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'Notification', message: 'ready', notification_type: 'idle_prompt', transcript_path: transcript }, 'moon');
    const { context, page, errors } = await openUi(browser, hub);
    await page.click('#between-open');
    await page.waitForFunction(() => /No agent has written/.test(document.querySelector('#between-state').textContent));

    const hostile = 'the API changed <img src=x onerror="window.__pwned=1">';
    hub.clawmux(['send', '--to', 'moon', hostile], 'sky');
    await page.waitForSelector('#between-threads [data-pair="moon-sky"]');
    await showsDelivery(page, 'the API changed', 'queued');
    assert.equal(await page.locator('#between-messages img').count(), 0, 'text shown as markup');

    const wait = hub.wait('moon');
    const printed = await wait.done;
    assert.match(printed, /\[MSG id:msg-[0-9a-f]{8} from:sky\] the API changed/);
    await showsDelivery(page, 'the API changed', 'handed over');

    // The model receives the wait's output: its transcript has the line.
    const line = printed.trim().split('\n')[0];
    appendFileSync(transcript, `${JSON.stringify({ type: 'user', timestamp: new Date().toISOString(), message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: line }] } })}\n`);
    await showsDelivery(page, 'the API changed', 'seen by its model');

    const id = line.match(/id:(msg-[0-9a-f]{8})/)[1];
    hub.clawmux(['send', '--to', 'sky', '--re', id, 'noted, updating the client'], 'moon');
    await showsDelivery(page, 'the API changed', 'answered');
    await showsDelivery(page, 'noted, updating the client', 'queued');

    // The user stops the thread: both agents are refused, with the reason.
    await page.click('#between-toggle');
    await page.waitForFunction(() => /closed by user/.test(document.querySelector('[data-pair="moon-sky"] .count').textContent));
    assert.throws(() => hub.clawmux(['send', '--to', 'moon', 'and another thing'], 'sky'), /closed by user/);
    await page.click('#between-toggle');
    await page.waitForFunction(() => !/closed/.test(document.querySelector('[data-pair="moon-sky"] .count').textContent));
    hub.clawmux(['send', '--to', 'moon', 'and another thing'], 'sky');
    await showsDelivery(page, 'and another thing', 'queued');

    // The user steps in: a word to moon in this thread, shown in it, and handed to moon as the user's.
    await page.selectOption('#between-to', 'moon');
    await page.fill('#between-text', 'keep the old field for a release');
    await page.click('#between-reply button[type="submit"]');
    await page.waitForFunction(() => [...document.querySelectorAll('#between-messages .between-message.user')]
      .some((li) => li.querySelector('.who').textContent === 'user → moon' && li.querySelector('.text').textContent === 'keep the old field for a release'));
    assert.match(await hub.wait('moon').done, /from:user\] keep the old field for a release/);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await deliveryOf(page, 'no such message'), null);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    hub.stop();
  }
});

test('the user names a lead in the window, the lead allows its member a read, and the user takes the right back', async () => {
  const hub = await startHub();
  try {
    hub.addAgent('sky');
    hub.addAgent('moon');
    const { context, page, errors } = await openUi(browser, hub);
    await page.click('#between-open');
    await page.waitForSelector('#lead-members input[value="sky"]');
    assert.equal(await page.isVisible('#leads-none'), true);
    await page.selectOption('#lead-agent', 'moon');
    await page.check('#lead-members input[value="sky"]');
    await page.click('#lead-form button[type="submit"]');
    await page.waitForSelector('#leads-list [data-lead="moon"]');
    assert.match(await page.textContent('#leads-list [data-lead="moon"]'), /moon answers for sky.*Read/);

    // Moon is told it leads sky, then of sky's request with its id; it allows the read.
    await hub.wait('moon').done;
    const told = hub.wait('moon');
    const decided = hub.hook('sky', 'permission', { hook_event_name: 'PermissionRequest', tool_name: 'Read', tool_input: { file_path: '/w/a.rs' } });
    const id = (await told.done).match(/clawmux allow sky (\S+)`/)[1];
    hub.clawmux(['allow', 'sky', id], 'moon');
    assert.equal(JSON.parse(await decided).hookSpecificOutput.decision.behavior, 'allow');
    const noted = (await hub.api('POST', '/api/command', { command: 'history', session_id: 'sky' })).messages
      .map((m) => m.text).join('\n');
    assert.match(noted, /moon \(lead\) allowed Read/);

    await page.click('#leads-list [data-lead="moon"] .take-back');
    await page.waitForFunction(() => !document.querySelector('#leads-list [data-lead]'));
    assert.equal(await page.isVisible('#leads-none'), true);
    const ev = await hub.events();
    const again = hub.hook('sky', 'permission', { hook_event_name: 'PermissionRequest', tool_name: 'Read', tool_input: { file_path: '/w/b.rs' } });
    // The request, as the feed tells it once the hub holds it open.
    const { request } = (await ev.until((e) => e.type === 'session_status' && e.session_id === 'sky'
      && e.needs?.request?.tool_input?.file_path === '/w/b.rs', 10000, "sky's request")).needs;
    ev.close();
    assert.throws(() => hub.clawmux(['allow', 'sky', request.id], 'moon'), /do not lead sky/);
    await hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: request.id, decision: 'deny', message: 'not now' });
    await again;
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    hub.stop();
  }
});
