// Agents of another machine in the same window, in Chromium: this machine's hub follows another hub over
// a real OpenSSH server on loopback (tests/e2e/sshd.mjs). The machine added from the sidebar, its agent
// listed under it, a message answered there, the link cut (the machine dimmed with its agents' last known
// states), a message sent meanwhile queued and delivered once when the link is back by itself.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { openBrowser, openUi, startHub } from './harness.mjs';
import { startSshd } from './sshd.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

/** Kills the `clawmux dial-stdio`s serving the hub whose data folder is `data`, as a dropped link ends them. */
function killDials(data) {
  const marker = Buffer.from(`CLAWMUX_HOME=${data}\0`);
  let killed = 0;
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes('dial-stdio') && readFileSync(`/proc/${pid}/environ`).includes(marker)) {
        process.kill(Number(pid), 'SIGKILL');
        killed += 1;
      }
    } catch { /* gone */ }
  }
  return killed;
}

test('another machine in the sidebar: its agent answers; a cut link dims it, and a queued message goes once when it is back', async () => {
  const remote = await startHub();
  const sshd = await startSshd(remote);
  const local = await startHub({ env: { CLAWMUX_SSH_CONFIG: sshd.clientConfig } });
  const events = await remote.events();
  const { page, errors } = await openUi(browser, local);
  try {
    const mark = events.mark();
    remote.clawmux(['spawn', 'sky', '--demo']);
    await events.state('sky', 'idle', mark, 20000);

    await page.click('#new-machine');
    await page.fill('#machine-name', 'gpu');
    await page.fill('#machine-url', sshd.url);
    await page.click('#machine-form button[type=submit]');
    await page.waitForSelector('#agents .machine[data-machine="gpu"]:not(.down)', { timeout: 20000 });
    await page.waitForSelector('#agents [data-agent="sky@gpu"][data-state="idle"]', { timeout: 20000 });
    assert.equal((await page.textContent('[data-agent="sky@gpu"] .name')).trim(), 'sky (demo)');

    const chat = '.chat[data-session="sky@gpu"]';
    await page.click('[data-agent="sky@gpu"]');
    await page.fill('#input', 'hello over ssh');
    await page.press('#input', 'Enter');
    await page.waitForFunction((c) => [...document.querySelectorAll(`${c} .msg.kind-assistant`)].some((m) => m.textContent.includes('hello over ssh')), chat, { timeout: 20000 });

    // The link is cut and the machine cannot be reached.
    sshd.stop();
    assert.ok(killDials(remote.data) >= 1);
    await page.waitForSelector('#agents .machine[data-machine="gpu"].down', { timeout: 20000 });
    assert.match(await page.textContent('.machine[data-machine="gpu"] .machine-state'), /unreachable, last seen \d\d:\d\d/);
    const last = await page.getAttribute('[data-agent="sky@gpu"].machine-down', 'data-state');
    assert.ok(['idle', 'processing'].includes(last), `dimmed, with its last known state: ${last}`);
    await page.fill('#input', 'sent while away');
    await page.press('#input', 'Enter');
    await page.waitForSelector(`${chat} .msg.queued`);

    // Back by itself: the queued message goes, once, and is answered.
    await sshd.start();
    await page.waitForSelector('#agents .machine[data-machine="gpu"]:not(.down)', { timeout: 60000 });
    await page.waitForFunction((c) => [...document.querySelectorAll(`${c} .msg.kind-assistant`)].some((m) => m.textContent.includes('sent while away')), chat, { timeout: 30000 });
    const sent = await page.$$eval(`${chat} .msg.kind-user`, (els) => els.filter((e) => e.textContent.includes('sent while away')).length);
    assert.equal(sent, 1, 'the message is shown once');
    const history = await remote.api('GET', '/api/history/sky?limit=100');
    assert.equal(history.messages.filter((m) => m.kind === 'user' && m.text === 'sent while away').length, 1, 'stored once there');
    const ids = await page.$$eval(`${chat} .msg[data-id]`, (els) => els.map((e) => e.dataset.id));
    assert.equal(new Set(ids).size, ids.length, 'nothing drawn twice');
    assert.deepEqual(errors, []);
  } finally {
    events.close();
    await page.context().close();
    sshd.stop();
    local.stop();
    remote.stop();
  }
});
