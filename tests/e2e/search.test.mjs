// Search everything said, in Chromium, against the real hub: Ctrl+K, results as the user types grouped by
// agent with the words marked, filters, the keyboard, and a result that opens its conversation at that
// message (older pages loaded around it, nothing already shown drawn again).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, STAND_IN, agentProcesses, openBrowser, openUi, startHub, within } from './harness.mjs';
import { prepareHome } from './real-claude.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

test('Ctrl+K finds what was said as it is typed, and opens it where it was said', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    hub.addAgent('moon');
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'The pelican plan: ship it on Friday' });
    for (let i = 0; i < 260; i += 1) await hub.api('POST', '/api/sessions/sky/messages', { text: `filler message ${i}` });
    hub.clawmux(['send', '--to', 'user', 'deploy failed: the build is red'], 'sky');
    hub.clawmux(['send', '--to', 'user', 'deployment done (NOT really)'], 'moon');
    await hub.api('POST', '/api/sessions/moon/messages', { text: 'deploy again please' });

    await page.click('[data-agent="sky"]');
    const newest = await page.waitForSelector('.chat[data-session="sky"] .msg:last-child');
    const newestId = await newest.getAttribute('data-id');

    await page.keyboard.press('Control+k');
    await page.waitForSelector('#search-panel:not([hidden])');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'search-input');
    await page.keyboard.type('pelica');
    const started = Date.now();
    await page.keyboard.press('n');
    await page.waitForFunction(() => /pelican/i.test(document.querySelector('#search-results .search-result mark')?.textContent ?? ''));
    const latency = await page.evaluate(() => window.clawmux.searchPanel.latency);
    console.log(`in Chromium, the last key to its results drawn: ${latency.toFixed(1)} ms (through Playwright: ${Date.now() - started} ms)`);
    assert.equal(await page.textContent('#search-results .search-group'), 'sky');
    assert.equal(await page.textContent('#search-results mark'), 'pelican');

    // Enter opens it where it was said: older pages come in around it; what was on screen stays as it was.
    await page.keyboard.press('Enter');
    await page.waitForSelector('.chat[data-session="sky"] .msg.found');
    assert.match(await page.textContent('.msg.found .body'), /The pelican plan/);
    assert.equal(await page.isHidden('#search-panel'), true);
    assert.ok(await page.$eval('.msg.found', (el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    }), 'scrolled into view');
    assert.ok(await newest.evaluate((el) => el.isConnected), 'the newest message is the same element, not drawn again');
    assert.equal(await newest.getAttribute('data-id'), newestId);
    await page.screenshot({ path: join(ARTIFACTS, 'search-opened.png') });

    // Several agents' results, grouped; the keyboard moves through them; filters narrow them.
    await page.keyboard.press('Control+k');
    await page.fill('#search-input', 'deploy*');
    await page.waitForFunction(() => document.querySelectorAll('#search-results .search-result').length === 3);
    assert.deepEqual(await page.$$eval('#search-results .search-group', (els) => els.map((e) => e.textContent)), ['moon', 'sky']);
    const selected = () => page.$eval('#search-results [aria-selected="true"]', (el) => el.dataset.index);
    assert.equal(await selected(), '0');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await selected(), '2');
    await page.keyboard.press('ArrowUp');
    assert.equal(await selected(), '1');
    await page.selectOption('#search-who', { label: 'me' });
    await page.waitForFunction(() => document.querySelectorAll('#search-results .search-result').length === 1);
    await page.selectOption('#search-who', { label: 'anyone' });
    await page.selectOption('#search-agent', 'moon');
    await page.waitForFunction(() => document.querySelectorAll('#search-results .search-result').length === 2);
    await page.screenshot({ path: join(ARTIFACTS, 'search-results.png') });
    // FTS5's own syntax is only words: no error, the message found.
    await page.selectOption('#search-agent', '');
    await page.fill('#search-input', '(NOT really');
    await page.waitForFunction(() => document.querySelectorAll('#search-results .search-result').length === 1);
    await page.fill('#search-input', 'nothing-like-this-was-said');
    await page.waitForFunction(() => document.querySelector('#search-state').textContent === 'Nothing found.');
    await page.keyboard.press('Escape');
    assert.equal(await page.isHidden('#search-panel'), true);
    assert.deepEqual(errors, []);
  } finally {
    await page.context().close();
    hub.stop();
  }
});

test('my own Claude Code sessions are searched when I ask, and one is resumed here in its folder', async () => {
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: STAND_IN } });
  const folder = join(hub.dir, 'src', 'app');
  mkdirSync(folder, { recursive: true });
  prepareHome(hub.dir, [folder]);
  const id = '0b5e6a2e-1111-4222-8333-444455556666';
  const projects = join(hub.dir, '.claude', 'projects', folder.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(projects, { recursive: true });
  const line = { type: 'user', sessionId: id, cwd: folder, timestamp: new Date().toISOString(), message: { content: 'rename the walrus module' } };
  writeFileSync(join(projects, `${id}.jsonl`), `${JSON.stringify(line)}\n`);
  const { page, errors } = await openUi(browser, hub);
  try {
    await page.keyboard.press('Control+k');
    await page.fill('#search-input', 'walrus');
    await page.waitForFunction(() => document.querySelector('#search-state').textContent === 'Nothing found.');
    assert.equal(await page.isChecked('#search-sessions'), false, 'not without asking');
    await page.check('#search-sessions');
    await page.waitForSelector('#search-results .session-result mark');
    assert.equal(await page.textContent('#search-results .search-group'), `Claude Code session in ${folder}`);
    assert.equal(await page.textContent('#search-results .session-result mark'), 'walrus');
    await page.screenshot({ path: join(ARTIFACTS, 'search-sessions.png') });
    // Resume here: an agent in that folder, resuming that session.
    await page.click('#search-results .session-result .resume');
    await page.waitForFunction(() => document.querySelector('#chat-title').textContent === 'app-0b5e6a2e');
    await within((async () => {
      for (;;) {
        const resumed = agentProcesses(hub.data).some((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(`--resume ${id}`);
          } catch { return false; }
        });
        if (resumed) return;
        await new Promise((ok) => setTimeout(ok, 100));
      }
    })(), 20000, 'the agent resuming the session');
    assert.deepEqual(errors, []);
  } finally {
    await page.context().close();
    hub.stop();
  }
});

test('Ctrl+K finds an item of the board by its words, and Enter opens the board', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    hub.clawmux(['task', 'add', 'Migrate the heron schema', '--body', 'the <b>orders</b> table first'], 'sky');
    hub.clawmux(['task', 'add', 'Write the docs'], 'sky');
    await page.keyboard.press('Control+k');
    await page.fill('#search-input', 'heron');
    await page.waitForSelector('#search-results .task-result');
    assert.equal(await page.textContent('#search-results .search-group'), 'The board');
    assert.deepEqual(await page.$$eval('#search-results .task-result', (els) => els.map((e) => e.querySelector('.snippet').textContent)), ['Migrate the heron schema']);
    await page.fill('#search-input', 'orders');
    await page.waitForFunction(() => document.querySelector('#search-results .task-result .snippet')?.textContent === 'Migrate the heron schema');
    assert.equal(await page.locator('#search-results b').count(), 0, 'text shown as text');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#board-panel:not([hidden])');
    assert.equal(await page.isHidden('#search-panel'), true);
    assert.deepEqual(errors, []);
  } finally {
    await page.context().close();
    hub.stop();
  }
});
