// A phone that reaches the hub at an address of the user's own (a tailnet address, here loopback), with no
// tunnel: the hub listens there over TLS only, with the certificate the app made. The phone (Chromium with
// a Pixel 7's screen and touch) trusts that certificate as a user who compared its fingerprint does: by its
// key (`--ignore-certificate-errors-spki-list`, Chromium's own pinning). Paired by the https link the
// desktop prints, it reads and sends, installs (its service worker on the https origin), opens again from
// the home screen with the token it kept and what it missed, and is shut out when phones are turned off.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { devices } from 'playwright-core';
import { ARTIFACTS, openBrowser, openUi, startHub, within } from './harness.mjs';

/** The base64 SHA-256 of a certificate's public key (SPKI), as Chromium pins one. */
function spkiPin(pem) {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

test('a phone at the hub\'s own TLS address pairs by the https link, sends, installs, opens again from the home screen with what it missed, and is shut out when phones are off', async () => {
  const hub = await startHub();
  let browser;
  try {
    hub.addAgent('sky');
    const wait = hub.wait('sky');
    hub.clawmux(['phone', 'on']);
    const listening = hub.clawmux(['phone', 'address', '127.0.0.1:0']);
    const port = Number(/^listening for phones at https:\/\/127\.0\.0\.1:(\d+)$/m.exec(listening)?.[1]);
    assert.ok(port > 0, listening);
    const pem = readFileSync(join(hub.data, 'phone-tls', 'cert.pem'), 'utf8');
    const fingerprint = new X509Certificate(pem).fingerprint256;
    assert.ok(listening.includes(fingerprint), `the fingerprint shown is the certificate's: ${listening}`);

    browser = await openBrowser([`--ignore-certificate-errors-spki-list=${spkiPin(pem)}`]);
    const context = await browser.newContext({ ...devices['Pixel 7'] });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const pairing = hub.clawmux(['phone', 'pair']);
    const link = new RegExp(`^(https://127\\.0\\.0\\.1:${port}/#pair=[0-9a-f]{32})$`, 'm').exec(pairing)?.[1];
    assert.ok(link, pairing);
    assert.ok(pairing.includes(fingerprint), pairing);
    await page.goto(link);
    await page.waitForSelector('#connection.online', { timeout: 20000 });
    assert.equal((await page.evaluate(() => localStorage.getItem('clawmux.phone.token'))).length, 64);

    await page.tap('[data-agent="sky"]');
    await page.fill('#input', 'sent over the tailnet');
    await page.tap('#send');
    const printed = await within(wait.done, 20000, "the agent's wait printing the phone's message");
    assert.match(printed, /from:user\] sent over the tailnet/);

    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    assert.equal(scope, `https://127.0.0.1:${port}/ui/`, 'installable on the https origin');

    // The page closed (a phone's browser drops a tab asleep for long); sky answers meanwhile. Opened again
    // from the home screen (the manifest's start address, no link), it is let in by the token it kept and
    // shows the answer once.
    await page.close();
    await hub.api('POST', '/api/send', { to: 'user', text: 'while the phone was away' }, 'sky');
    const start = await (await fetch(`http://127.0.0.1:${hub.port}/ui/manifest.webmanifest`)).json();
    const again = await context.newPage();
    again.on('pageerror', (e) => errors.push(String(e)));
    await again.goto(`https://127.0.0.1:${port}${start.start_url}`);
    await again.waitForSelector('#connection.online', { timeout: 20000 });
    await again.tap('[data-agent="sky"]');
    await again.waitForFunction(() => [...document.querySelectorAll('.chat[data-session="sky"] .msg')].some((m) => /while the phone was away/.test(m.textContent)), null, { timeout: 20000 });
    const shown = await again.$$eval('.chat[data-session="sky"] .msg', (els) => els.filter((e) => /while the phone was away/.test(e.textContent)).length);
    assert.equal(shown, 1, 'shown once');

    // Phones off: the address closes, and the phone says it is offline.
    hub.clawmux(['phone', 'off']);
    await again.waitForSelector('#connection:not(.online)', { state: 'attached', timeout: 30000 });
    assert.deepEqual(errors, []);
  } finally {
    await browser?.close();
    hub.stop();
  }
});

test('the desktop page says where phones may come, with the fingerprint of the app\'s certificate, and pairs to that address', async () => {
  const hub = await startHub();
  const browser = await openBrowser();
  try {
    hub.clawmux(['phone', 'address', '127.0.0.1:0']);
    const { page, errors } = await openUi(browser, hub);
    assert.equal(await page.isVisible('#phone-address'), false, 'phones off: nowhere');
    await page.check('#phone-on');
    const line = await page.waitForSelector('#phone-address:not([hidden])');
    const pem = readFileSync(join(hub.data, 'phone-tls', 'cert.pem'), 'utf8');
    const fingerprint = new X509Certificate(pem).fingerprint256;
    const said = await line.textContent();
    const url = /Phones may also come to (https:\/\/127\.0\.0\.1:\d+) \(this desktop's own certificate, SHA-256 ([0-9A-F:]+)\)/.exec(said);
    assert.ok(url, said);
    assert.equal(url[2], fingerprint);
    await page.click('#phone-pair');
    await page.waitForSelector('#phone-pairing:not([hidden])');
    assert.match(await page.textContent('#phone-link'), new RegExp(`^${url[1]}/#pair=[0-9a-f]{32}$`));
    assert.match(await page.textContent('#phone-pin'), new RegExp(`go on only if its SHA-256 fingerprint is ${fingerprint}`));
    await page.screenshot({ path: join(ARTIFACTS, 'phone-address.png') });
    // An address that is not this machine's: the page says why.
    hub.clawmux(['phone', 'address', '192.0.2.1:3461']);
    await page.uncheck('#phone-on');
    await page.check('#phone-on');
    await page.waitForFunction(() => /Cannot listen for phones: cannot listen on 192\.0\.2\.1:3461/.test(document.getElementById('phone-address').textContent));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    hub.stop();
  }
});
