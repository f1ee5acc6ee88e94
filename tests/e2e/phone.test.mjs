// The phone: Chromium with a phone's screen and touch (Playwright's device emulation) reaching the hub
// through an `ssh -L` tunnel to a real OpenSSH server, as a phone's SSH app forwards a port. Paired by
// the link the desktop shows (`clawmux phone pair`), it lists the agents, sends a message that reaches the
// agent's wait, installs as an app (its manifest and service worker), and is shut out when revoked.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, openBrowser, openUi, startHub, within } from './harness.mjs';
import { phoneAt, tunnel } from './phone-harness.mjs';
import jsQR from 'jsqr';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

test('a phone paired by its link through an ssh tunnel reads and sends, catches up after sleeping, installs as an app, and is shut out when revoked', async () => {
  const hub = await startHub();
  const way = await tunnel(hub);
  let phone;
  try {
    hub.addAgent('sky');
    const wait = hub.wait('sky');
    // Phones off: the tunnel's address is no way in.
    const off = await fetch(`http://127.0.0.1:${way.local}/api/phone/pair`, { method: 'POST', body: '{"code":"x"}', headers: { 'Content-Type': 'application/json' } });
    assert.equal(off.status, 403);

    assert.match(hub.clawmux(['phone', 'on']), /^phones: on$/m);
    const link = /^(http:\/\/127\.0\.0\.1:\d+\/#pair=[0-9a-f]{32})$/m.exec(hub.clawmux(['phone', 'pair']))[1];
    // The phone's end of the tunnel has a port of its own.
    phone = await phoneAt(browser, hub, way, link);
    const { page, context, errors } = phone;
    await page.waitForSelector('#connection.online', { timeout: 20000 });
    assert.equal(new URL(page.url()).hash, '', 'the code is out of the address');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('clawmux.token')), null, 'no desktop token here');
    assert.equal((await page.evaluate(() => localStorage.getItem('clawmux.phone.token'))).length, 64);
    assert.equal(await page.isVisible('#phone-settings'), false, "pairing and settings are the desktop's");
    assert.equal(await page.isVisible('#new-agent'), false);
    await page.screenshot({ path: join(ARTIFACTS, 'phone-agents.png') });

    // The agents as a list; a tap opens one, its chat takes the screen.
    await page.tap('[data-agent="sky"]');
    await page.waitForSelector('#input', { state: 'visible' });
    assert.equal(await page.isVisible('#agents'), false, 'one column: the chat alone');
    await page.fill('#input', 'sent from the phone');
    await page.tap('#send');
    const printed = await within(wait.done, 20000, "the agent's wait printing the phone's message");
    assert.match(printed, /\[MSG id:msg-[0-9a-f]{8} from:user\] sent from the phone/);
    await page.screenshot({ path: join(ARTIFACTS, 'phone-chat.png') });
    // The phone sleeps (its tunnel gone) while sky answers twice; awake, both arrive, once each.
    way.drop();
    await page.waitForSelector('#connection:not(.online)', { state: 'attached', timeout: 60000 });
    for (const text of ['while you slept, one', 'while you slept, two']) await hub.api('POST', '/api/send', { to: 'user', text }, 'sky');
    await way.reconnect();
    await page.waitForFunction(() => [...document.querySelectorAll('.chat[data-session="sky"] .msg')].filter((m) => /while you slept/.test(m.textContent)).length === 2, null, { timeout: 30000 });
    await page.waitForSelector('#connection.online', { state: 'attached' });
    const drawn = await page.$$eval('.chat[data-session="sky"] .msg[data-id]', (els) => els.map((e) => e.dataset.id));
    assert.equal(new Set(drawn).size, drawn.length, 'nothing drawn twice');
    await page.tap('#back-to-agents');
    await page.waitForSelector('#agents', { state: 'visible' });

    // Installable: a manifest with its icons, and a service worker for the page's own files.
    const installed = await page.evaluate(async () => {
      const manifest = await (await fetch(document.querySelector('link[rel=manifest]').href)).json();
      const ready = await navigator.serviceWorker.ready;
      return { name: manifest.name, display: manifest.display, icons: manifest.icons.map((i) => i.sizes), scope: ready.scope };
    });
    assert.deepEqual(installed, { name: 'ClawMux', display: 'standalone', icons: ['256x256', '512x512'], scope: `http://127.0.0.1:${way.local}/ui/` });

    // A link used once is no good again.
    const again = await context.newPage();
    await again.goto(link.replace(`:${hub.port}/`, `:${way.local}/`));
    await again.waitForFunction(() => /wrong, expired or used/.test(document.getElementById('notice')?.textContent ?? ''));
    await again.close();

    // Revoked on the desktop: shut out at once.
    const id = /^ {2}(phone-[0-9a-f]{8}) /m.exec(hub.clawmux(['phone', 'status']))[1];
    assert.match(hub.clawmux(['phone', 'status']), /never used|used/);
    hub.clawmux(['phone', 'revoke', id]);
    await page.waitForSelector('#connection:not(.online)', { timeout: 20000 });
    const status = await page.evaluate(async () => (await fetch('/api/sessions', { headers: { Authorization: `Bearer ${localStorage.getItem('clawmux.phone.token')}` } })).status);
    assert.equal(status, 401);
    assert.match(hub.clawmux(['phone', 'status']), new RegExp(`${id} .* revoked`));
    assert.deepEqual(errors, []);
  } finally {
    await phone?.context.close();
    way.stop();
    hub.stop();
  }
});

test('the desktop page turns phones on, shows the pairing link as a QR code, lists the phone that paired, and revokes it', async () => {
  const hub = await startHub();
  const way = await tunnel(hub);
  const desktop = await openUi(browser, hub);
  let phone;
  try {
    const { page } = desktop;
    assert.equal(await page.isVisible('#phone-pair'), false, 'no pairing while phones are off');
    await page.check('#phone-on');
    await page.waitForSelector('#phone-pair:not([hidden])');
    assert.match(hub.clawmux(['phone', 'status']), /^phones: on$/m);
    await page.click('#phone-pair');
    const qr = await page.waitForSelector('#phone-pairing:not([hidden]) #phone-qr[src^="data:image/svg+xml"]');
    await page.waitForFunction((img) => img.complete && img.naturalWidth >= 200, qr);
    const link = (await page.textContent('#phone-link')).trim();
    assert.match(link, new RegExp(`^http://127\\.0\\.0\\.1:${hub.port}/#pair=[0-9a-f]{32}$`));
    // The QR code holds that very link, as a phone's camera reads it.
    const { width, height, pixels } = await page.evaluate((img) => {
      const canvas = Object.assign(document.createElement('canvas'), { width: img.naturalWidth, height: img.naturalHeight });
      const g = canvas.getContext('2d');
      g.drawImage(img, 0, 0);
      return { width: canvas.width, height: canvas.height, pixels: [...g.getImageData(0, 0, canvas.width, canvas.height).data] };
    }, qr);
    assert.equal(jsQR(Uint8ClampedArray.from(pixels), width, height)?.data, link);
    assert.match(await page.textContent('#phone-expiry'), /within [45]:\d\d; it works once/);
    await page.screenshot({ path: join(ARTIFACTS, 'phone-pairing.png') });

    // The phone opens it: the desktop lists it, and the pairing is done.
    phone = await phoneAt(browser, hub, way, link);
    await phone.page.waitForSelector('#connection.online', { timeout: 20000 });
    await page.waitForSelector('#phone-list li:not(.revoked)', { timeout: 10000 });
    await page.waitForSelector('#phone-pairing', { state: 'hidden' });
    assert.match(await page.textContent('#phone-list li'), /Pixel|Phone/);

    // Revoke: shut out at once.
    await page.click('#phone-list li button');
    await page.waitForSelector('#phone-list li.revoked');
    await phone.page.waitForSelector('#connection:not(.online)', { timeout: 20000 });
    assert.deepEqual(desktop.errors, []);
  } finally {
    await phone?.context.close();
    await desktop.context.close();
    way.stop();
    hub.stop();
  }
});
