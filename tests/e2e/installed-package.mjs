// The package a user installs, used as a new user would (run by tests/package.sh after it installed the
// .deb with apt, with the source tree's ui/ hidden, so the window can only show the UI the binary carries):
// the installed `clawmux-desktop` under Xvfb shows the first screen, "+ New agent" starts the demo agent
// with the installed `clawmux` (Claude Code is not on the window's PATH), and a message is answered.

import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { APP, browser, data, painted, processes, useApp } from './desktop-harness.mjs';
import { ARTIFACTS } from './harness.mjs';

// The demo agent runs in tmux, which outlives the window: the test ends it, and the harness its tmux server.
useApp();

/** The programs running with this data folder in their environment (the hub's agents). */
const agentExes = () => processes().filter((p) => p.env.includes(`CLAWMUX_HOME=${data}`)).map((p) => p.exe);

test('the installed app: its first screen says what to do, "+ New agent" starts the demo with the installed clawmux, and it answers', async () => {
  assert.equal(APP, '/usr/bin/clawmux-desktop', 'the installed program, not the build tree');
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const welcome = await browser.$('#welcome');
  await welcome.waitForDisplayed({ timeout: 10000 });
  assert.match(await welcome.getText(), /Start an agent|Try the demo agent/);
  assert.match(await (await browser.$('#welcome-install')).getText(), /npm install -g @anthropic-ai\/claude-code/, 'says how to install Claude Code, which is not on its PATH');
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'installed-first-screen.png'));

  await (await browser.$('#new-agent')).click();
  await browser.waitUntil(async () => (await (await browser.$('#spawn-hint')).getText()).includes('Claude Code is not installed'), { timeout: 10000, timeoutMsg: 'no hint about Claude Code' });
  assert.equal(await (await browser.$('#spawn-demo')).isSelected(), true, 'the demo is offered');
  // In WebKitGTK too: a closed select is dark with light text (the screenshot shows the placeholders,
  // whose style WebKit's getComputedStyle does not report).
  const looks = await browser.execute(() => {
    const select = getComputedStyle(document.getElementById('spawn-mode'));
    return { background: select.backgroundColor, color: select.color, appearance: select.appearance };
  });
  const luminance = (rgb) => { const [r, g, b] = rgb.match(/\d+/g).map(Number); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  assert.ok(luminance(looks.background) < 60 && luminance(looks.color) > 180, JSON.stringify(looks));
  assert.equal(looks.appearance, 'none');
  await (await browser.$('#spawn-name')).setValue('moon');
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'installed-new-agent.png'));
  await (await browser.$('#spawn-form button[type="submit"]')).click();
  // Idle within 30 s (it takes a fraction of a second); if not, the failure says what the window showed.
  const shown = () => browser.execute(() => ({
    hint: document.getElementById('spawn-hint')?.textContent ?? '',
    form: document.getElementById('spawn-form')?.hidden ? 'closed' : 'open',
    moon: document.querySelector('[data-agent="moon"]')?.className ?? 'not in the sidebar',
  }));
  await browser.waitUntil(async () => /\bindicator-idle\b/.test((await shown()).moon), { timeout: 30000 })
    .catch(async () => { throw new Error(`the demo agent moon never went idle; the window: ${JSON.stringify(await shown())}`); });
  const exes = agentExes();
  assert.ok(exes.includes('/usr/bin/clawmux'), `the demo agent runs the installed clawmux: ${exes.join(', ')}`);
  assert.ok(!exes.some((e) => e.includes('/target/')), `nothing from the build tree runs: ${exes.join(', ')}`);

  await (await browser.$('#input')).setValue('hello from the installed app');
  await browser.keys('Enter');
  // A new message fades in from transparent, and WebDriver reads no text of what it does not see yet:
  // wait for the words, not just the element.
  const reply = await browser.$('.msg.kind-assistant:has(.reply-to)');
  await reply.waitForExist({ timeout: 30000 });
  await browser.waitUntil(async () => /hello from the installed app/.test(await reply.getText()), {
    timeout: 10000,
    timeoutMsg: 'the reply never showed the message',
  });
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'installed-answered.png'));
  execFileSync('/usr/bin/clawmux', ['terminate', 'moon'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, CLAWMUX_HOME: data }, stdio: 'ignore' });
  await (await browser.$('[data-agent="moon"].indicator-offline')).waitForExist({ timeout: 10000 });
});
