// A phone answering a real agent from its notification: the real Claude Code CLI (scripted model) asks a
// permission; the hub pushes to the phone's push service (here one on loopback that checks the VAPID token
// and decrypts what it gets, `push-service.mjs`); the push is delivered to the phone's service worker
// (Chrome DevTools' ServiceWorker.deliverPushMessage), which shows "sky needs you" with Allow and Deny;
// Allow answers the permission through the phone's tunnel, once; the desktop's page, which showed the
// request, says it was answered elsewhere, and the phone's notification is withdrawn.
//
// Chromium here has no push service of its own to subscribe with (offline, no FCM): the subscription the
// phone gives the hub is the loopback service's, handed over with the phone's token as the page does.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, openUi, startHub } from './harness.mjs';
import { pairedPhone, tunnel } from './phone-harness.mjs';
import { startPushService } from './push-service.mjs';
import { asker, useClaudeAndBrowser, claudeEnv, prepareHome, spawnSky, startModel } from './real-claude.mjs';

const real = useClaudeAndBrowser();

/** Delivers `message` to the phone's service worker as its push service would. */
async function deliver(phone, message) {
  const cdp = await phone.context.newCDPSession(phone.page);
  const registration = new Promise((ok) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const r = registrations.find((x) => x.scopeURL.startsWith(phone.origin) && !x.isDeleted);
      if (r) ok(r.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  const registrationId = await registration;
  await cdp.send('ServiceWorker.deliverPushMessage', { origin: phone.origin, registrationId, data: JSON.stringify(message) });
  await cdp.detach();
}

/** The notifications the phone shows: `[{title, body, tag, actions}]`. */
function notifications(phone) {
  return phone.page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications())
    .map((n) => ({ title: n.title, body: n.body, tag: n.tag, actions: n.actions.map((a) => a.action) })));
}

test('a real agent\'s permission reaches the phone as a push and is answered from its notification, once; the desktop shows it answered elsewhere', async () => {
  const model = await startModel(asker());
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: real.claude, CLAWMUX_PUSH_ON_LOOPBACK: '1', ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  const push = await startPushService();
  const way = await tunnel(hub);
  const ev = await hub.events();
  let phone;
  let desktop;
  try {
    await spawnSky(hub, ev);
    assert.match(hub.clawmux(['phone', 'contact', 'mailto:me@example.com']), /pushes name mailto:me@example.com/);
    phone = await pairedPhone(real.browser, hub, way, ['notifications']);
    // The subscription, given as the page gives it (`POST /api/phone/push`), with this phone's token.
    const { key } = await phone.page.evaluate(async (token) => (await fetch('/api/phone/push-key', { headers: { Authorization: `Bearer ${token}` } })).json(), phone.token);
    const given = await phone.page.evaluate(async ([token, sub]) => (await fetch('/api/phone/push', {
      method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(sub),
    })).status, [phone.token, push.subscription(key)]);
    assert.equal(given, 200);
    await phone.page.waitForFunction(() => navigator.serviceWorker.controller !== null || navigator.serviceWorker.ready);

    // The user's desktop page shows sky; then the user leaves the desk (the window loses its focus).
    desktop = await openUi(real.browser, hub);
    await desktop.page.click('[data-agent="sky"]');
    await desktop.page.evaluate(() => { document.hasFocus = () => false; window.dispatchEvent(new Event('blur')); });
    await new Promise((ok) => setTimeout(ok, 300));

    const file = join(hub.data, 'agents', 'sky', 'from-the-phone');
    let m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: `do: touch ${file}` });
    const asked = await ev.until((e) => ev.seen.indexOf(e) >= m && e.type === 'session_status' && e.session_id === 'sky' && e.needs?.request, 60000, 'the permission');
    const first = await push.next(1);
    assert.equal(first.error, undefined, first.error);
    assert.equal(first.sub, 'mailto:me@example.com', 'the contact the user set, for the push service');
    const raised = Math.round(first.at - asked.receivedAt);
    console.log(`push: a need raised (its status on the feed) to the push request at the push service: ${raised} ms`);
    const request = asked.needs.request.id;
    assert.deepEqual(first.message, { agent: 'sky', kind: 'needs_you', need: 'permission', tool: 'Bash', request }, 'as little as it can be: no command');
    await desktop.page.waitForSelector('#request:not([hidden]) button.allow');

    // The phone's service worker shows it, with Allow and Deny.
    await deliver(phone, first.message);
    await phone.page.waitForFunction(async () => (await (await navigator.serviceWorker.ready).getNotifications()).length === 1);
    const [shown] = await notifications(phone);
    assert.deepEqual(shown, { title: 'sky needs you', body: 'Allow Bash?', tag: `request:${request}`, actions: ['allow', 'deny'] });

    // Allow, from the notification: the dialog closes, the command runs, once.
    m = ev.mark();
    const worker = phone.context.serviceWorkers().find((w) => w.url().startsWith(phone.origin));
    const clicked = performance.now();
    await worker.evaluate(async () => {
      const [n] = await self.registration.getNotifications();
      // A tap on Allow: the worker's own handler, as the phone would call it. (A synthetic event may not
      // extend its life, which the page keeps up here anyway.)
      try { self.dispatchEvent(new NotificationEvent('notificationclick', { notification: n, action: 'allow' })); } catch { /* waitUntil */ }
    });
    const closed = await ev.until((e) => ev.seen.indexOf(e) >= m && e.type === 'session_status' && e.session_id === 'sky' && !e.needs, 30000, 'the dialog closing');
    console.log(`push: the phone's Allow to the agent's dialog closing, through the ssh tunnel: ${Math.round(closed.receivedAt - clicked)} ms`);
    await desktop.page.waitForSelector('#request.answered-elsewhere:not([hidden])');
    assert.match(await desktop.page.textContent('#request'), /Answered elsewhere/);
    await desktop.page.screenshot({ path: join(ARTIFACTS, 'phone-answered-elsewhere.png') });
    await ev.event('assistant_text', 'sky', m, (e) => /result:/.test(e.text), 60000);
    assert.ok(existsSync(file), 'the command ran');

    // Answered: the phone is told, and withdraws the notification; the desktop says where it went.
    const second = await push.next(2);
    assert.deepEqual(second.message, { agent: 'sky', kind: 'answered', request });
    await deliver(phone, second.message);
    await phone.page.waitForFunction(async () => (await (await navigator.serviceWorker.ready).getNotifications()).length === 0);

    // The same answer again (a replayed tap): refused, nothing decided twice.
    const replay = await phone.page.evaluate(async ([token, id]) => (await fetch('/api/command', {
      method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ command: 'answer', session_id: 'sky', request_id: id, decision: 'allow' }),
    })).json(), [phone.token, request]);
    assert.equal(replay.code, 'not_pending');

    // sky finishes and waits: one push says so; then nobody needs the user, and nothing is sent.
    const done = await push.next(3, 60000);
    assert.deepEqual(done.message, { agent: 'sky', kind: 'finished' });
    await new Promise((ok) => setTimeout(ok, 3000));
    console.log(`push: pushes while nobody needed the user (3 s): ${push.received.length - 3}`);
    assert.equal(push.received.length, 3, JSON.stringify(push.received.slice(3)));
    assert.deepEqual(phone.errors, []);
  } finally {
    await phone?.context.close();
    await desktop?.context.close();
    ev.close();
    way.stop();
    await push.close();
    hub.stop();
    await model.close?.();
  }
});
