// The shared board, in Chromium against the real hub and the real `clawmux` run as agents: an agent's item
// shows in the Open column; the user gives it to another agent (who receives it as the user's message,
// through its wait) and it moves to Taken with that owner; the agent finishes it with `clawmux task done`
// and it moves to Done; the user adds an item from the window, and hostile text stays text.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, openUi, startHub } from './harness.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

/** Waits until item `id` is in `state`'s column, its owner line matching `who`. */
async function inColumn(page, id, state, who = /./) {
  await page.waitForFunction(([i, s, w]) => {
    const card = document.querySelector(`.board-column[data-state="${s}"] .board-card[data-id="${i}"]`);
    return card && new RegExp(w).test(card.querySelector('.who').textContent);
  }, [String(id), state, who.source]);
}

test('the board shows an agent\'s item, the user gives it to another agent who finishes it, and adds one', async () => {
  const hub = await startHub();
  try {
    for (const name of ['sky', 'rain']) hub.addAgent(name);
    const { context, page, errors } = await openUi(browser, hub);
    await page.click('#board-open');
    await page.waitForFunction(() => /Nothing on the board yet/.test(document.querySelector('#board-state').textContent));

    hub.clawmux(['task', 'add', 'write the docs <img src=x onerror="window.__pwned=1">', '--body', 'the API part'], 'sky');
    await inColumn(page, 1, 'open', /nobody/);
    assert.equal(await page.locator('#board-columns img').count(), 0, 'a title shown as markup');

    // The user gives it to rain: rain's wait hands it the user's message.
    const wait = hub.wait('rain');
    await page.selectOption('.board-card[data-id="1"] select.give', 'rain');
    const printed = await wait.done;
    assert.match(printed, /from:user\] The user gave you task #1: write the docs/);
    await inColumn(page, 1, 'taken', /^rain/);

    hub.clawmux(['task', 'done', '1'], 'rain');
    await inColumn(page, 1, 'done', /^rain/);

    await page.fill('#board-title', 'review the migration');
    await page.fill('#board-body', 'before Friday');
    await page.click('#board-add button[type="submit"]');
    await inColumn(page, 2, 'open', /nobody/);
    const listed = hub.clawmux(['task', 'list', '--state', 'open'], 'sky');
    assert.equal(listed.trim(), '#2  open  -  review the migration');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    hub.stop();
  }
});
