// Files in the chat, in Chromium against the real hub and an agent's real `clawmux wait`: a screenshot
// pasted and a log dropped reach the agent as paths it can read, holding the exact bytes; the chat shows a
// thumbnail and a chip, again after a reload; limits are said before anything is sent; a message queued
// while the hub is down goes with its files, once.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, openBrowser, openUi, startHub, within } from './harness.mjs';
import { fileLines, give, png } from './files.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

/** An agent `sky` in its `clawmux wait`, shown in the page. */
async function skyWaiting(hub, page) {
  hub.addAgent('sky');
  await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'clawmux wait' } }, 'sky');
  const wait = hub.wait('sky');
  await page.click('[data-agent="sky"]');
  await page.waitForSelector('[data-agent="sky"].indicator-idle');
  return wait;
}

test('a pasted screenshot and a dropped log reach the agent as files it reads, and the chat shows them', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    const wait = await skyWaiting(hub, page);
    const shot = png(320, 200);
    const log = Buffer.from('error[E0425]: cannot find value `x`\n  --> src/main.rs:2:5\n');
    await give(page, 'paste', [{ name: 'image.png', type: 'image/png', base64: shot.toString('base64') }]);
    await give(page, 'drop', [{ name: 'build.log', type: 'text/plain', base64: log.toString('base64') }]);
    // Both in the tray, kept by the hub before anything is sent.
    await page.waitForFunction(() => document.querySelectorAll('#attached .file').length === 2 && !document.querySelector('#attached .keeping'));
    await page.fill('#input', 'What broke?');
    await page.keyboard.press('Enter');
    const printed = await within(wait.done, 30000, "the agent's wait printing the message");
    assert.match(printed, /^\[MSG id:msg-[0-9a-f]{8} from:user\] What broke\?$/m);
    const [image, text] = fileLines(printed);
    assert.deepEqual([image.type, image.size, image.name], ['image/png', shot.length, 'image.png']);
    assert.deepEqual([text.type, text.size, text.name], ['text/plain', log.length, 'build.log']);
    assert.ok(image.path.startsWith(join(hub.data, 'attachments') + '/') && image.path.endsWith('.png'), image.path);
    assert.ok(text.path.endsWith('.log'), text.path);
    // What the agent reads is what was pasted, the user's alone.
    assert.deepEqual(readFileSync(image.path), shot);
    assert.deepEqual(readFileSync(text.path), log);
    assert.equal(statSync(image.path).mode & 0o777, 0o600);
    assert.equal(statSync(join(hub.data, 'attachments')).mode & 0o777, 0o700);
    assert.equal(await page.$$eval('#attached .file', (f) => f.length), 0, 'the tray is empty after the send');
    // Served back with the token only; an image as what it is, anything else as a download no page may
    // run (an attached HTML file never becomes a page of the hub's origin).
    const get = (path, auth = true) => fetch(`http://127.0.0.1:${hub.port}/api/attachments/${path.split('/').pop()}`,
      { headers: auth ? { Authorization: `Bearer ${hub.token}` } : {} });
    assert.equal((await get(image.path, false)).status, 401);
    const served = await get(image.path);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), shot);
    const download = await get(text.path);
    assert.equal(download.headers.get('content-type'), 'application/octet-stream');
    assert.equal(download.headers.get('content-disposition'), 'attachment');
    assert.equal(download.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(download.headers.get('content-security-policy'), 'sandbox');

    // The message shows a thumbnail (the image itself) and a chip; after a reload, from the history.
    const shown = async () => {
      const img = await page.waitForSelector('.msg.kind-user .file.kind-image img[src^="blob:"]');
      await page.waitForFunction((el) => el.complete && el.naturalWidth === 320, img);
      // Each file of the message is drawn as it is read back: the chip may come after the thumbnail.
      return (await page.waitForSelector('.msg.kind-user .file.kind-text figcaption')).textContent();
    };
    assert.equal(await shown(), `build.log · ${log.length} B`);
    await page.screenshot({ path: join(ARTIFACTS, 'attachments-sent.png') });
    await page.reload();
    await page.click('[data-agent="sky"]');
    assert.equal(await shown(), `build.log · ${log.length} B`);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('files that cannot go are refused before the send, with the reason; a paste of text stays text', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    const wait = await skyWaiting(hub, page);
    // Too large: said at once, nothing sent to the hub.
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(21 * 1024 * 1024)], 'dump.bin'));
      document.querySelector('#input').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await page.waitForSelector('#notice:not([hidden])');
    assert.equal(await page.textContent('#notice'), 'Not attached: dump.bin is 21.0 MB; a file may be at most 20.0 MB.');
    // An image the model could not read: the hub refuses it and says why.
    await give(page, 'paste', [{ name: 'shot.png', type: 'image/png', base64: Buffer.from('not a png').toString('base64') }]);
    await page.waitForFunction(() => document.querySelector('#notice').textContent.includes('not one'));
    assert.match(await page.textContent('#notice'), /^Not attached: `shot\.png` is named as image\/png but is not one/);
    // A paste with no file is the text box's own: nothing attached, nothing sent.
    await page.focus('#input');
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.setData('text/plain', 'just words');
      document.querySelector('#input').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await page.keyboard.press('Enter');
    assert.equal(await page.$$eval('#attached .file', (f) => f.length), 0);
    // The next message goes alone: none of the refused files went with it.
    await page.fill('#input', 'only text');
    await page.keyboard.press('Enter');
    const printed = await within(wait.done, 30000, "the agent's wait");
    assert.match(printed, /\] only text$/m);
    assert.deepEqual(fileLines(printed), []);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('a screenshot sent while the hub is down goes with its message when it is back, once', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    let wait = await skyWaiting(hub, page);
    wait.process.kill();
    await within(wait.done, 10000, 'the first wait ending');
    await hub.halt();
    await page.waitForSelector('#connection.offline', { timeout: 20000 });
    const shot = png(64, 64);
    await give(page, 'paste', [{ name: 'offline.png', type: 'image/png', base64: shot.toString('base64') }]);
    await page.fill('#input', 'while you were away');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.msg.queued .file.kind-image img');
    await hub.resume();
    await page.waitForSelector('#connection.online', { timeout: 20000 });
    await page.waitForFunction(() => !document.querySelector('.msg.queued'), null, { timeout: 20000 });
    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'clawmux wait' } }, 'sky');
    wait = hub.wait('sky');
    const printed = await within(wait.done, 30000, "the agent's wait");
    assert.match(printed, /\] while you were away$/m);
    const files = fileLines(printed);
    assert.equal(files.length, 1);
    assert.deepEqual(readFileSync(files[0].path), shot);
    const history = await hub.api('GET', '/api/history/sky?limit=10');
    const stored = history.messages.filter((m) => m.text === 'while you were away');
    assert.equal(stored.length, 1, 'stored once');
    assert.equal(stored[0].attachments.length, 1);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});
