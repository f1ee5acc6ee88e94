// The web UI as a person uses it, against the real hub and real agents' commands.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, openBrowser, openUi, startHub, within } from './harness.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

const dotColour = (page, agent) =>
  page.$eval(`[data-agent="${agent}"] .dot`, (el) => getComputedStyle(el).backgroundColor);
const GREEN = 'rgb(63, 185, 80)';
const YELLOW = 'rgb(227, 179, 65)';
const BLUE = 'rgb(79, 143, 247)';
const GRAY = 'rgb(139, 148, 158)';

async function indicatorIs(page, agent, cls, colour, timeout = 5000) {
  await page.waitForSelector(`[data-agent="${agent}"].${cls}`, { timeout });
  assert.equal(await dotColour(page, agent), colour);
}

test('the indicator, the chat status and the messages follow a whole agent cycle', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    await indicatorIs(page, 'sky', 'indicator-starting', YELLOW);
    await page.click('[data-agent="sky"]');
    assert.equal(await page.textContent('#chat-status'), '', 'STARTING shows nothing in the chat');

    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'clawmux wait' } }, 'sky');
    let wait = hub.wait('sky');
    await indicatorIs(page, 'sky', 'indicator-idle', GREEN);
    await page.waitForFunction(() => document.querySelector('#chat-status').textContent === 'Running clawmux wait');
    await page.screenshot({ path: join(ARTIFACTS, 'cycle-1-idle.png') });

    await page.fill('#input', 'Please **check** the build');
    await page.keyboard.press('Enter');
    const printed = await within(wait.done, 60000, "the agent's wait printing the message");
    const id = /\[MSG id:(msg-[0-9a-f]{8}) from:user\] Please \*\*check\*\* the build/.exec(printed)?.[1];
    assert.ok(id, `the wait printed ${printed}`);
    await indicatorIs(page, 'sky', 'indicator-working', BLUE);
    await page.waitForSelector('#chat-status .thinking span');
    assert.equal(await page.$eval(`[data-id="${id}"] .body strong`, (el) => el.textContent), 'check');
    await page.screenshot({ path: join(ARTIFACTS, 'cycle-2-working.png') });

    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreCompact', trigger: 'auto' }, 'sky');
    await page.waitForSelector('[data-agent="sky"][data-state="compacting"]');
    assert.equal(await dotColour(page, 'sky'), BLUE, 'COMPACTING is Working (blue)');
    await page.waitForSelector('#chat-status .thinking');

    hub.clawmux(['send', '--to', 'user', '--re', id, 'Build is **green**. <img src="data:," onerror="window.pwned=1"><script>window.pwned=2</script><style>#sidebar{display:none}</style><b style="display:none">x</b>'], 'sky');
    // The answer is the agent's own message, after the question, tied to it by a quote of it.
    const reply = await page.waitForSelector(`.msg.kind-assistant:has(.reply-to[data-reply-to="${id}"])`);
    assert.equal(await page.$(`[data-id="${id}"] .msg`), null, "nothing is drawn inside the question's bubble");
    assert.match(await reply.$eval('.reply-to', (el) => el.textContent), /^↪ in reply to you: “Please check the build”$/);
    assert.equal(await reply.evaluate((el) => el.previousElementSibling?.dataset.id), id, 'right after what it answers');
    assert.equal(await reply.$eval('.body strong', (el) => el.textContent), 'green');
    // The agent's HTML is shown as the text it wrote: nothing ran, no handler reached the live document
    // (and the page's CSP had nothing to block: `errors` below).
    assert.equal(await page.evaluate(() => window.pwned), undefined, 'no script ran');
    assert.match(await reply.$eval('.body', (el) => el.textContent), /<img src="data:," onerror="window.pwned=1"><script>/);
    assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('#chats *')]
      .flatMap((el) => [...el.attributes].map((a) => a.name)).filter((n) => n.startsWith('on'))), [], 'no event-handler attribute');
    assert.equal(await page.$$eval('#chats img, #chats script', (els) => els.length), 0, 'no element from the agent\'s HTML');
    // Nor a style (the page allows inline ones, for the terminal): the page looks as it did.
    assert.equal(await page.$$eval('#chats style, #chats [style]', (els) => els.length), 0, 'no style from the agent');
    assert.ok(await page.isVisible('#sidebar'));
    hub.clawmux(['send', '--to', 'user', '--re', id], 'sky');
    await page.waitForSelector(`[data-id="${id}"] > .acks .ack`);

    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'clawmux wait' } }, 'sky');
    wait = hub.wait('sky');
    await indicatorIs(page, 'sky', 'indicator-idle', GREEN);
    await page.screenshot({ path: join(ARTIFACTS, 'cycle-3-replied.png') });
    wait.process.kill();
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('every message is shown: one the markdown renderer cannot handle is plain text with a note, and the chat goes on', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    await page.waitForSelector('[data-agent="sky"]');
    // About 6 KB each: nested quotes overflow marked's stack; a deep list takes it seconds per KB more.
    const quotes = `${'> '.repeat(3000)}deep quote`;
    const list = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
    const sent = [];
    for (const text of [quotes, list, 'after them, **bold**']) sent.push(await hub.api('POST', '/api/send', { to: 'user', text }, 'sky'));
    const started = Date.now();
    await page.click('[data-agent="sky"]');
    await page.waitForSelector(`[data-id="${sent[2].id}"] .body strong`);
    console.log(`# the chat with both messages open in ${Date.now() - started} ms`);
    for (const [m, text] of [[sent[0], quotes], [sent[1], list]]) {
      const body = await page.$(`[data-id="${m.id}"] .body`);
      assert.equal(await body.$eval('.render-note', (el) => el.textContent), 'Shown as plain text: this message could not be formatted.');
      assert.equal(await body.evaluate((el) => el.firstChild.textContent), text, 'the text, whole and as written');
    }
    // Rendering one costs little in the page itself.
    const ms = await page.evaluate(async (text) => {
      const { renderInto } = await import(new URL('js/markdown.js', document.baseURI).href);
      const el = document.createElement('div');
      const t = performance.now();
      renderInto(el, text);
      return performance.now() - t;
    }, quotes);
    console.log(`# rendering the 6 KB nested quote: ${ms.toFixed(1)} ms`);
    assert.ok(ms < 200, `render took ${ms} ms`);
    // And again after a reload: the same messages, nothing missing.
    await page.reload();
    await page.waitForSelector('#connection.online');
    await page.click('[data-agent="sky"]');
    await page.waitForSelector(`[data-id="${sent[2].id}"] .body strong`);
    assert.equal(await page.$$eval('#chats .render-note', (els) => els.length), 2);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('a link in a message opens in a new tab that cannot reach back; the page never leaves the UI', async () => {
  const hub = await startHub();
  const { context, page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    await page.click('[data-agent="sky"]');
    await context.route('https://example.invalid/**', (route) => route.fulfill({ contentType: 'text/html', body: '<p>outside</p>' }));
    const m = await hub.api('POST', '/api/send', { to: 'user', text: 'See [the docs](https://example.invalid/docs).' }, 'sky');
    const link = await page.waitForSelector(`[data-id="${m.id}"] .body a`);
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    const ui = page.url();
    const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await tab.waitForLoadState();
    assert.equal(tab.url(), 'https://example.invalid/docs');
    assert.equal(await tab.evaluate(() => window.opener), null, 'the new tab cannot reach the UI');
    assert.equal(page.url(), ui, 'the UI stayed');
    await tab.close();
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('an earlier ClawMux\'s conversations in the data folder are offered at start and imported with a click', async () => {
  const history = { messages: [
    { role: 'user', text: 'from the old days', ts: 1760000000.5, id: 'msg-0000aaaa' },
    { role: 'assistant', text: 'still **here**', ts: 1760000001, id: 'msg-0000aaab', parent_id: 'msg-0000aaaa' },
  ] };
  const hub = await startHub({ prepare: (data) => {
    mkdirSync(join(data, 'sessions', 'elder'), { recursive: true });
    writeFileSync(join(data, 'sessions', 'elder', 'history.json'), JSON.stringify(history));
  } });
  const { page, errors } = await openUi(browser, hub);
  try {
    await page.waitForSelector('#import-offer:not([hidden])');
    assert.match(await page.textContent('#import-text'), /Found 1 agent conversation/);
    await page.click('#import-go');
    await page.waitForFunction(() => document.querySelector('#import-text').textContent.startsWith('Imported 1'));
    await page.click('[data-agent="elder"]');
    await page.waitForSelector('#chats .msg.kind-assistant .body strong');
    assert.deepEqual(await page.$$eval('.chat[data-session="elder"] .msg .body', (els) => els.map((e) => e.textContent.trim())), ['from the old days', 'still here']);
    // Offered once: a new page finds nothing left to import.
    await page.reload();
    await page.waitForSelector('#connection.online');
    assert.equal(await page.isHidden('#import-offer'), true);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('an open page stays on one connection however long the user is away: the idle limit closes only silent clients', async () => {
  // An idle limit of 2 s: the hub pings the page's WebSocket every 0.5 s, and the browser answers by itself.
  const hub = await startHub({ env: { CLAWMUX_IDLE_TIMEOUT_MS: '2000' } });
  const context = await browser.newContext();
  const page = await context.newPage();
  const sockets = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  try {
    await page.goto(hub.url);
    await page.waitForSelector('#connection.online');
    await new Promise((ok) => setTimeout(ok, 6000)); // three idle limits, the user doing nothing
    assert.equal(await page.textContent('#connection'), 'online');
    assert.equal(sockets.length, 1, `the page reconnected: ${sockets.length} sockets`);
  } finally {
    await context.close();
    hub.stop();
  }
});

test('a rendered message is never re-created: the same element after 100 more messages', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    await page.waitForSelector('[data-agent="sky"]');
    await page.click('[data-agent="sky"]');
    const first = await hub.api('POST', '/api/send', { to: 'user', text: 'first' }, 'sky');
    await page.waitForSelector(`[data-id="${first.id}"]`);
    await page.$eval(`[data-id="${first.id}"]`, (el) => { window.marked = el; el.dataset.mark = 'kept'; });
    for (let i = 0; i < 100; i++) await hub.api('POST', '/api/send', { to: 'user', text: `message ${i}` }, 'sky');
    await page.waitForFunction(() => document.querySelectorAll('.chat[data-session="sky"] .msg').length === 101);
    assert.equal(await page.evaluate((id) => document.querySelector(`[data-id="${id}"]`) === window.marked, first.id), true);
    assert.equal(await page.$eval(`[data-id="${first.id}"]`, (el) => el.dataset.mark), 'kept');

    // One more message touches exactly one new element, and removes or changes nothing else.
    await page.evaluate(() => {
      window.mutations = [];
      new MutationObserver((list) => window.mutations.push(...list)).observe(document.querySelector('#chats'), {
        childList: true, subtree: true, attributes: true, characterData: true,
      });
    });
    const one = await hub.api('POST', '/api/send', { to: 'user', text: 'one more' }, 'sky');
    await page.waitForSelector(`[data-id="${one.id}"]`);
    const touched = await page.evaluate(() => window.mutations.map((m) => ({
      type: m.type, added: [...m.addedNodes].map((n) => n.dataset?.id), removed: m.removedNodes.length,
    })));
    assert.deepEqual(touched, [{ type: 'childList', added: [one.id], removed: 0 }]);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('after a dead connection the gap arrives once, and a send made offline is stored once', async () => {
  const hub = await startHub();
  const { context, page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    await page.waitForSelector('[data-agent="sky"]');
    await page.click('[data-agent="sky"]');
    const before = await hub.api('POST', '/api/send', { to: 'user', text: 'before' }, 'sky');
    await page.waitForSelector(`[data-id="${before.id}"]`);

    // The network goes away and the connection dies.
    await context.setOffline(true);
    await page.evaluate(() => window.clawmux.backend.dropConnection());
    await page.waitForSelector('#connection.offline');
    const gap = [];
    for (let i = 0; i < 20; i++) gap.push((await hub.api('POST', '/api/send', { to: 'user', text: `gap ${i}` }, 'sky')).id);
    await page.fill('#input', 'written while offline');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.msg.queued');
    await page.screenshot({ path: join(ARTIFACTS, 'offline-queued.png') });

    await context.setOffline(false);
    await page.waitForSelector('#connection.online', { timeout: 15000 });
    await page.waitForFunction((ids) => ids.every((id) => document.querySelector(`[data-id="${id}"]`)), gap, { timeout: 10000 });
    await page.waitForFunction(() => !document.querySelector('.msg.queued'));
    const counts = await page.evaluate(() => {
      const seen = {};
      for (const el of document.querySelectorAll('.msg[data-id]')) seen[el.dataset.id] = (seen[el.dataset.id] ?? 0) + 1;
      return seen;
    });
    assert.ok(Object.values(counts).every((n) => n === 1), `duplicates on screen: ${JSON.stringify(counts)}`);
    assert.equal(Object.keys(counts).length, 22);
    const history = await hub.api('GET', '/api/history/sky?limit=1000');
    assert.equal(history.messages.filter((m) => m.text === 'written while offline').length, 1);
    await page.screenshot({ path: join(ARTIFACTS, 'reconnected.png') });
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('agents are started, ended and started again from the UI; the demo agent stands in for a missing Claude', async () => {
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: '/nonexistent/claude' } });
  const { page, errors } = await openUi(browser, hub);
  try {
    await page.click('#new-agent');
    await page.waitForFunction(() => document.querySelector('#spawn-hint').textContent.includes('demo agent'));
    assert.equal(await page.isChecked('#spawn-demo'), true, 'the demo agent is offered');
    // A bad name: the hub's reason, nothing created, the form still open.
    await page.fill('#spawn-name', 'a.b');
    await page.$eval('#spawn-form', (f) => f.requestSubmit());
    assert.equal(await page.isVisible('#spawn-form'), true);
    await page.$eval('#spawn-name', (el) => { el.removeAttribute('pattern'); });
    await page.$eval('#spawn-form', (f) => f.requestSubmit());
    await page.waitForFunction(() => document.querySelector('#spawn-hint').textContent.includes('plain identifier'));
    assert.deepEqual(await hub.api('GET', '/api/sessions'), []);

    await page.fill('#spawn-name', 'demo1');
    await page.click('#spawn-form button[type=submit]');
    // A process started in tmux reaching its first wait: seconds on a busy machine, not a UI's moment.
    await indicatorIs(page, 'demo1', 'indicator-idle', GREEN, 30000);
    assert.match(await page.textContent('[data-agent="demo1"] .name'), /\(demo\)/, 'labelled as the demo agent');
    assert.equal(await page.textContent('#chat-title'), 'demo1');
    await page.fill('#input', 'hello demo');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#chats .msg.kind-assistant');
    await page.screenshot({ path: join(ARTIFACTS, 'agents-1-demo.png') });

    await page.click('#act-terminate');
    await indicatorIs(page, 'demo1', 'indicator-offline', GRAY);
    assert.equal(await page.textContent('[data-agent="demo1"] .label'), 'Offline');
    assert.equal(await page.textContent('#chat-status'), 'Offline');
    assert.equal(await page.textContent('#act-restart'), 'Start');
    await page.screenshot({ path: join(ARTIFACTS, 'agents-2-offline.png') });

    await page.click('#act-restart');
    await indicatorIs(page, 'demo1', 'indicator-idle', GREEN, 30000);
    assert.equal(await page.$$eval('#chats .msg.kind-user', (els) => els.length), 1, 'the history stayed, once');
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('the answer to a spawn, arriving after the agent\'s first status, does not put the indicator back to Starting', async () => {
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: '/nonexistent/claude' } });
  const { page, errors } = await openUi(browser, hub);
  try {
    // The answer is held until the hub has the agent idle (its first wait came first, as on a busy machine).
    await page.route('**/api/command', async (route) => {
      if (!route.request().postData()?.includes('"spawn"')) return route.continue();
      const response = await route.fetch();
      await within((async () => {
        while (!(await hub.api('GET', '/api/sessions')).some((s) => s.session_id === 'moon' && s.state === 'idle')) {
          await new Promise((ok) => setTimeout(ok, 50));
        }
      })(), 30000, 'the demo agent idle at the hub');
      await page.waitForSelector('[data-agent="moon"].indicator-idle');
      await route.fulfill({ response });
    });
    await page.click('#new-agent');
    await page.waitForFunction(() => document.querySelector('#spawn-hint').textContent.includes('demo agent'));
    await page.fill('#spawn-name', 'moon');
    await page.click('#spawn-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('spawn-form').hidden);
    assert.equal(await page.getAttribute('[data-agent="moon"]', 'class').then((c) => /\bindicator-idle\b/.test(c)), true,
      'the spawn\'s older row put the indicator back');
    await indicatorIs(page, 'moon', 'indicator-idle', GREEN);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('"Needs you" paints over the indicator with its reason until the tool call ends; observed sessions cannot be chatted with', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  const ORANGE = 'rgb(240, 136, 62)';
  try {
    hub.addAgent('sky');
    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'clawmux wait' } }, 'sky');
    const wait = hub.wait('sky');
    await indicatorIs(page, 'sky', 'indicator-idle', GREEN);
    await page.click('[data-agent="sky"]');
    await page.fill('#input', 'deploy it');
    await page.keyboard.press('Enter');
    await within(wait.done, 60000, "the agent's wait ending");
    await indicatorIs(page, 'sky', 'indicator-working', BLUE);

    const hook = (body) => hub.api('POST', '/api/hooks/tool-status', body, 'sky');
    await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git push --force' }, tool_use_id: 't1' });
    await hook({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'git push --force' } });
    await page.waitForSelector('[data-agent="sky"].needs-you');
    assert.equal(await dotColour(page, 'sky'), ORANGE, 'Needs you has a colour of its own');
    assert.equal(await page.textContent('[data-agent="sky"] .label'), 'Needs you');
    assert.equal(await page.textContent('[data-agent="sky"] .needs'), 'Permission: Running git push --force');
    assert.equal(await page.textContent('#chat-status'), 'Needs you: Permission: Running git push --force');
    await page.screenshot({ path: join(ARTIFACTS, 'needs-you.png') });

    // A subagent at work does not clear it; the tool call's end does, and the canonical indicator is back.
    await hook({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/x' }, tool_use_id: 's1', agent_id: 'sub' });
    await hook({ hook_event_name: 'PostToolUse', tool_name: 'Read', tool_use_id: 's1', agent_id: 'sub' });
    await hook({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_use_id: 't1' });
    await page.waitForSelector('[data-agent="sky"]:not(.needs-you)');
    assert.equal(await dotColour(page, 'sky'), BLUE);
    assert.equal(await page.textContent('[data-agent="sky"] .label'), 'Working');
    assert.equal(await page.textContent('[data-agent="sky"] .needs'), '');

    // An observed session: listed with its label and state, the composer disabled with the reason.
    await hub.api('POST', '/api/observe', { hook_event_name: 'SessionStart', session_id: '9f8e7d6c-1111', cwd: join(hub.dir, 'webapp'), source: 'startup' });
    await indicatorIs(page, 'webapp-9f8e7d6c', 'indicator-idle', GREEN);
    assert.equal(await page.textContent('[data-agent="webapp-9f8e7d6c"] .name'), 'webapp-9f8e7d6c (observed)');
    await page.click('[data-agent="webapp-9f8e7d6c"]');
    assert.equal(await page.$eval('#input', (el) => el.disabled), true);
    assert.match(await page.$eval('#input', (el) => el.placeholder), /Observed only/);
    await hub.api('POST', '/api/observe', { hook_event_name: 'UserPromptSubmit', session_id: '9f8e7d6c-1111', cwd: join(hub.dir, 'webapp'), prompt: 'hi' });
    await indicatorIs(page, 'webapp-9f8e7d6c', 'indicator-working', BLUE);
    await page.click('[data-agent="sky"]');
    assert.equal(await page.$eval('#input', (el) => el.disabled), false, 'chat is back for an agent that reads it');
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('unread counts: an agent off screen counts its answers; coming back to it clears them, also after a reload', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  const badge = (agent) => page.textContent(`[data-agent="${agent}"] .unread`);
  const sessions = async () => Object.fromEntries((await hub.api('POST', '/api/command', { command: 'sessions' }))
    .map((s) => [s.session_id, s.unread_count]));
  try {
    hub.addAgent('sky');
    hub.addAgent('moon');
    await page.click('[data-agent="sky"]');
    hub.clawmux(['send', '--to', 'user', 'First, while you look.'], 'sky');
    await page.waitForSelector('article.kind-assistant >> text=First, while you look.');
    await page.click('[data-agent="moon"]');
    hub.clawmux(['send', '--to', 'user', 'Second, while you are away.'], 'sky');
    hub.clawmux(['send', '--to', 'user', 'Third.'], 'sky');
    await page.waitForFunction(() => document.querySelector('[data-agent="sky"] .unread').textContent === '2');
    assert.equal((await sessions()).sky, 2, 'the hub counts them too');

    // Back to sky, whose chat was already open once: read.
    await page.click('[data-agent="sky"]');
    await page.waitForFunction(() => document.querySelector('[data-agent="sky"] .unread').textContent === '');
    // The hub learns it from the page's request, which has no event of its own: asked until it says so.
    const end = Date.now() + 5000;
    while ((await sessions()).sky !== 0 && Date.now() < end) await page.waitForTimeout(20);
    assert.equal((await sessions()).sky, 0, 'the hub knows they were read');

    // Away again, one more, then a reload: the count comes from the hub, and clears on the first visit.
    await page.click('[data-agent="moon"]');
    hub.clawmux(['send', '--to', 'user', 'Fourth.'], 'sky');
    await page.waitForFunction(() => document.querySelector('[data-agent="sky"] .unread').textContent === '1');
    await page.reload();
    await page.waitForSelector('#connection.online');
    assert.equal(await badge('sky'), '1');
    await page.click('[data-agent="sky"]');
    await page.waitForFunction(() => document.querySelector('[data-agent="sky"] .unread').textContent === '');
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('a first run says what to do, placeholders look like placeholders, selects are readable in the dark theme', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    // No agent yet: the first screen says what to do, not "Pick an agent".
    await page.waitForSelector('#welcome:not([hidden])');
    assert.equal(await page.textContent('#chat-title'), 'Welcome');
    const steps = await page.$$eval('#welcome li:not([hidden]) strong', (s) => s.map((e) => e.textContent));
    assert.ok(steps.includes('Try the demo agent') && steps.includes('Bring in the sessions you already run'), steps.join(' | '));
    assert.match(await page.textContent('#welcome-hooks'), /clawmux hooks install/);
    // Claude Code is not on this hub's PATH: it says how to install it.
    assert.match(await page.textContent('#welcome-install'), /npm install -g @anthropic-ai\/claude-code/);
    await page.screenshot({ path: join(ARTIFACTS, 'first-run.png') });
    // "Check this machine": the hub's `clawmux doctor`, each check with its fix.
    await page.click('#welcome-doctor');
    await page.waitForSelector('#doctor-checks li[data-check="hub"].doctor-ok', { timeout: 20000 });
    assert.match(await page.textContent('#doctor-checks li[data-check="tmux"]'), /^ok\s*tmux/);
    // Claude Code is not on this hub's PATH: a failure, with how to install it.
    assert.ok(await page.$('#doctor-checks li[data-check="claude code"].doctor-fail'));
    assert.match(await page.textContent('#doctor-checks li[data-check="claude code"] .fix'), /npm install -g @anthropic-ai\/claude-code/);
    assert.match(await page.textContent('#doctor-state'), /to fix: each says how/);
    await page.screenshot({ path: join(ARTIFACTS, 'first-run-doctor.png') });
    await page.click('#doctor-close');

    // The new-agent form: a placeholder is dim and slanted, a typed value is not.
    await page.click('#new-agent');
    const look = (sel, pseudo) => page.$eval(sel, (el, p) => {
      const s = getComputedStyle(el, p);
      return { color: s.color, style: s.fontStyle, background: s.backgroundColor };
    }, pseudo);
    const placeholder = await look('#spawn-name', '::placeholder');
    await page.fill('#spawn-model', 'opus');
    const typed = await look('#spawn-model', null);
    assert.notEqual(placeholder.color, typed.color, 'a placeholder is not drawn like a value');
    assert.equal(placeholder.style, 'italic');
    assert.equal(typed.style, 'normal');
    assert.match(await page.getAttribute('#spawn-name', 'placeholder'), /^required/);
    // A closed select is drawn dark with light text, like the fields around it.
    const select = await look('#spawn-mode', null);
    const luminance = (rgb) => { const [r, g, b] = rgb.match(/\d+/g).map(Number); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    assert.ok(luminance(select.background) < 60, `select background ${select.background}`);
    assert.ok(luminance(select.color) > 180, `select text ${select.color}`);
    assert.equal(await page.$eval('#spawn-mode', (el) => getComputedStyle(el).appearance), 'none');
    await page.screenshot({ path: join(ARTIFACTS, 'first-run-new-agent.png') });
    await page.click('#spawn-cancel');

    // "Start the demo agent" from the first screen: the agent comes, the first screen goes.
    await page.click('#welcome-try-demo');
    await page.waitForSelector('[data-agent="demo"][data-state="idle"]', { timeout: 20000 });
    await page.waitForSelector('#welcome[hidden]', { state: 'attached' });
    assert.equal(await page.textContent('#chat-title'), 'demo');
    await page.fill('#input', 'hello demo');
    await page.keyboard.press('Enter');
    const reply = await page.waitForSelector('.msg.kind-assistant:has(.reply-to)', { timeout: 20000 });
    assert.match(await reply.textContent(), /hello demo/);
    // The reply is the agent's own message, in its own place, not inside the user's bubble.
    const [user, agent] = await Promise.all([
      page.$eval('.msg.kind-user', (el) => el.getBoundingClientRect().right),
      reply.evaluate((el) => el.getBoundingClientRect().left),
    ]);
    assert.ok(agent < user, 'the answer stands on the agent\'s side');
    await page.screenshot({ path: join(ARTIFACTS, 'first-run-answered.png') });
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('the sidebar says whether interrupted agents are resumed at start, and a click changes it in the hub', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    await page.waitForFunction(() => document.getElementById('resume-agents').checked === true);
    await page.click('#resume-agents');
    await page.waitForFunction(() => document.getElementById('resume-agents').checked === false);
    assert.deepEqual(await hub.api('POST', '/api/command', { command: 'preferences' }), { resume_agents: false });
    assert.match(hub.clawmux(['resume']), /at start: off/);
    hub.clawmux(['resume', '--at-start', 'on']);
    await page.reload();
    await page.waitForFunction(() => document.getElementById('resume-agents').checked === true);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('typing / lists the slash commands the agent knows; one it knows runs there, anything else is a message', async () => {
  const hub = await startHub();
  mkdirSync(join(hub.dir, '.claude', 'commands'), { recursive: true });
  writeFileSync(join(hub.dir, '.claude', 'commands', 'herons.md'), '---\ndescription: Herons, briefly\n---\nTell me about herons\n');
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    await page.click('[data-agent="sky"]');
    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'clawmux wait' } }, 'sky');
    const wait = hub.wait('sky');
    await page.waitForSelector('[data-agent="sky"].indicator-idle');
    await page.type('#input', '/');
    await page.waitForSelector('#slash-list:not([hidden]) li[data-name="compact"]');
    await page.type('#input', 'he');
    await page.waitForFunction(() => [...document.querySelectorAll('#slash-list li')].map((li) => li.dataset.name).join() === 'herons');
    assert.equal(await page.textContent('#slash-list li'), '/herons Herons, briefly');
    await page.screenshot({ path: join(ARTIFACTS, 'slash-list.png') });
    await page.click('#slash-list li');
    assert.equal(await page.inputValue('#input'), '/herons ');
    // Run where the agent is: this one was registered, not started by ClawMux, so nothing can be typed
    // into a terminal of it, and the reason is said; the words stay in the box.
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#notice').textContent.startsWith('Not run:'));
    assert.match(await page.textContent('#notice'), /^Not run: agent `sky` runs on its own; ClawMux did not start it/);
    assert.equal(await page.inputValue('#input'), '/herons ');
    // A line that names no command is a message like any other.
    await page.fill('#input', '/etc/hosts is wrong');
    await page.keyboard.press('Enter');
    const printed = await within(wait.done, 30000, "the agent's wait");
    assert.match(printed, /\] \/etc\/hosts is wrong$/m);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});
