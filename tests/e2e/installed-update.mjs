// The installed app updates itself (run by tests/package.sh with the package at version N installed with
// apt, and N+1 built beside it, both made with a throwaway release key of the test's own): an update server
// on loopback, whose answers the test picks, offers the window what a real one could. What is not ClawMux's
// newer version (an older one, a package signed with another key, a package that is not the one signed) is
// refused with the reason, a server that stops answering is said to be out of reach, and N goes on; N+1 is
// installed on the user's word, the app starts again into it, and the agent running in tmux is the same
// process, its conversation whole. Prints the figure: from "Install and restart" to the new version's
// window, with the download on loopback.
//
// UPDATE_DIR holds current.deb (N), next.deb with next.deb.sig (N+1, signed with the key the app carries),
// other.deb.sig (N+1 signed with another key); UPDATE_NEXT is N+1's version.

import { after, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP, APP_ENV, browser, data, dir, painted, processes, until, useApp } from './desktop-harness.mjs';
import { ARTIFACTS } from './harness.mjs';

const UPDATES = process.env.UPDATE_DIR;
const NEXT = process.env.UPDATE_NEXT;
const file = (name) => readFileSync(join(UPDATES, name));
const signature = (name) => file(name).toString('utf8').trim();

// What the server answers for the manifest: the test moves it from one case to the next.
let manifest = 'older';
const hanging = [];
const server = createServer((req, res) => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const release = (version, url, sig) => JSON.stringify({
    version,
    notes: `ClawMux ${version}\n\n- What changed, line one.\n- Line two.`,
    pub_date: '2026-11-28T00:00:00Z',
    platforms: { 'linux-x86_64-deb': { url: `${base}/${url}`, signature: sig } },
  });
  if (req.url === '/latest.json') {
    if (manifest === 'hang') { hanging.push(res); return; }
    const body = {
      older: () => release('0.0.9', 'next.deb', signature('next.deb.sig')),
      foreign: () => release(NEXT, 'next.deb', signature('other.deb.sig')),
      swapped: () => release(NEXT, 'current.deb', signature('next.deb.sig')),
      good: () => release(NEXT, 'next.deb', signature('next.deb.sig')),
    }[manifest]();
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
  } else if (req.url === '/next.deb' || req.url === '/current.deb') {
    const bytes = file(req.url.slice(1));
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length }).end(bytes);
  } else {
    res.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
writeFileSync(APP_ENV, `export CLAWMUX_UPDATES='http://127.0.0.1:${server.address().port}/latest.json'\n`);

/** The app's processes of this test (the installed program, replaced or not, with the test's HOME). */
const apps = () => processes()
  .filter((p) => p.exe.replace(/ \(deleted\)$/, '') === APP && p.env.includes(`HOME=${dir}`))
  .map((p) => p.pid);

const tmux = (...args) => execFileSync('tmux', ['-S', join(data, 'tmux.sock'), ...args], { encoding: 'utf8' });
const installed = () => execFileSync('dpkg-query', ['-W', '-f=${Version}', 'clawmux'], { encoding: 'utf8' });

/** Whether a window named ClawMux is mapped on the test's display. */
function windowShown() {
  const script = `
from Xlib import display, X
d = display.Display(':77')
def walk(w):
    for c in w.query_tree().children:
        try:
            if c.get_wm_name() == 'ClawMux' and c.get_attributes().map_state == X.IsViewable:
                return True
        except Exception:
            pass
        if walk(c):
            return True
    return False
print('yes' if walk(d.screen().root) else 'no')`;
  try {
    // Debian's python3, which has python3-xlib (scripts/setup), whatever python3 comes first on PATH.
    return execFileSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' }).trim() === 'yes';
  } catch {
    return false;
  }
}

after(() => {
  for (const res of hanging) res.destroy();
  server.close();
  for (const pid of apps()) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
});

// After the cleanup above is registered: it runs first, so the app started again by the update (no child
// of the test's) is gone before the harness ends the agents' tmux server and removes the app's folder.
useApp();

/** Waits for the updates line to say `said`. */
async function says(said, timeout, what = `the updates line never said ${said}`) {
  await browser.waitUntil(async () => said.test(await (await browser.$('#update-state')).getText()), { timeout, timeoutMsg: what });
}

/** Clicks "Check for updates" and waits for the line to say `said`. */
async function check(said, timeout = 30000) {
  await (await browser.$('#update-check')).click();
  await says(said, timeout);
}

/** Clicks "Install and restart" on an update the app must refuse, and waits for the reason. */
async function installRefused(said) {
  await check(new RegExp(`ClawMux ${NEXT.replaceAll('.', '\\.')} is out`));
  await (await browser.$('#update-install')).click();
  await says(said, 60000, `the refusal never said ${said}`);
  assert.equal(installed(), '0.1.0', 'nothing was installed');
}

test('the installed app refuses what is not its next version, then updates itself on the word, the agents going on', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const [before] = apps();
  assert.ok(before, 'the app runs');

  // The check at start: an older version is offered, and refused with the reason.
  await says(/0\.0\.9, older than this 0\.1\.0/, 30000, 'the check at start did not refuse the older version');
  assert.equal(await (await browser.$('#update-install')).isDisplayed(), false);

  // A server that takes the request and never answers.
  manifest = 'hang';
  await check(/ClawMux 0\.1\.0\. The update server did not answer \(.*timed out.*\); asked again later/, 60000);
  console.log(`the hanging server: ${await (await browser.$('#update-state')).getText()}`);

  // A package signed with another key, and a package that is not the one the signature is of.
  manifest = 'foreign';
  await installRefused(/Not installed: .*not signed with ClawMux's release key/);
  manifest = 'swapped';
  await installRefused(/Not installed: .*not signed with ClawMux's release key/);
  assert.deepEqual(apps(), [before], 'the same app goes on');

  // An agent at work, with a conversation.
  await (await browser.$('#new-agent')).click();
  await (await browser.$('#spawn-demo')).waitForExist({ timeout: 10000 });
  await (await browser.$('#spawn-name')).setValue('moon');
  await (await browser.$('#spawn-form button[type="submit"]')).click();
  await (await browser.$('[data-agent="moon"].indicator-idle')).waitForExist({ timeout: 30000 });
  await (await browser.$('#input')).setValue('hello before the update');
  await browser.keys('Enter');
  const reply = await browser.$('.msg.kind-assistant:has(.reply-to)');
  await reply.waitForExist({ timeout: 30000 });
  const panes = tmux('list-panes', '-a', '-F', '#{session_name} #{pane_pid}');

  // The next version: what changed is shown, and it is installed on the user's word.
  manifest = 'good';
  await check(new RegExp(`ClawMux ${NEXT.replaceAll('.', '\\.')} is out \\(this is 0\\.1\\.0\\)`));
  await (await browser.$('#update-notes summary')).click();
  assert.match(await (await browser.$('#update-notes-text')).getText(), /What changed, line one/);
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'update-offered.png'));
  const clicked = performance.now();
  await (await browser.$('#update-install')).click();

  await until('the new version installed', () => installed() === NEXT, 120000);
  await until('the app started again', () => apps().some((pid) => pid !== before) && !apps().includes(before), 120000);
  await until("the new version's window", () => windowShown(), 60000);
  const seconds = (performance.now() - clicked) / 1000;
  console.log(`figure: update from 0.1.0 to ${NEXT} (download on loopback, install, restart) to the window back: ${seconds.toFixed(1)} s (package ${(file('next.deb').length / 1048576).toFixed(1)} MiB)`);

  // The agent is the same process, and the new version's hub has the whole conversation.
  assert.equal(tmux('list-panes', '-a', '-F', '#{session_name} #{pane_pid}'), panes, 'the agents are the same processes');
  const port = Number(readFileSync(join(data, 'port'), 'utf8').trim());
  const token = readFileSync(join(data, 'token'), 'utf8').trim();
  let page;
  await until("the new version's hub", async () => {
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/api/command`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ command: 'history', session_id: 'moon', limit: 100 }),
      });
      page = answer.ok ? await answer.json() : null;
      return page !== null;
    } catch {
      return false;
    }
  }, 60000);
  const texts = page.messages.map((m) => m.text);
  assert.equal(texts.filter((t) => t === 'hello before the update').length, 1, JSON.stringify(texts));
});
