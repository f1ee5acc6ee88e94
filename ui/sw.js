// The installed app's service worker (a phone's home screen).
//
// It keeps the page's own files, so the app opens at once and says "offline" rather than nothing when
// the tunnel is down: taken from the hub first and kept as they come; the kept copy only when the hub
// cannot be reached. Nothing of the API or the feed is ever kept.
//
// It shows the hub's pushes (Web Push, encrypted for this phone; what they carry is the agent, the kind,
// the tool and the request's id, never a command or a message): "sky needs you", with Allow and Deny on a
// permission's notification, which answer it with this phone's token (handed over by the page). A push
// that says a request was answered (anywhere) withdraws its notification; an answer that comes too late
// says "answered elsewhere".

const CACHE = 'clawmux-ui-v1';
/** Where the page leaves this phone's token for the notifications' answers. */
const PHONE = 'clawmux-phone';
const TOKEN = '/phone-token';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(['index.html', 'css/app.css', 'js/main.js'])).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith('clawmux-ui-') && n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith('/ui/')) return;
  event.respondWith(fetch(event.request)
    .then((response) => {
      if (response.ok) {
        const copy = response.clone();
        caches.open(CACHE).then((cache) => cache.put(event.request, copy));
      }
      return response;
    })
    .catch(() => caches.match(event.request).then((kept) => kept ?? Response.error())));
});

/** The page hands over this phone's token (and takes it back when the phone is no longer paired). */
self.addEventListener('message', (event) => {
  if (event.origin && event.origin !== self.location.origin) return;
  const { type, token } = event.data ?? {};
  if (type !== 'token') return;
  event.waitUntil(caches.open(PHONE).then((c) => (token ? c.put(TOKEN, new Response(token)) : c.delete(TOKEN))));
});

/** One notification per request (or per agent, for what has no request). */
const tagOf = (m) => (m.request ? `request:${m.request}` : `agent:${m.agent}`);

const WHAT = {
  permission: (m) => `Allow ${m.tool ?? 'a tool'}?`,
  answer: () => 'It asks you a question.',
  plan_approval: () => 'Its plan waits for your approval.',
  error: () => 'Its turn failed.',
};

function describe(m) {
  if (m.kind === 'needs_you') return [`${m.agent} needs you`, (WHAT[m.need] ?? (() => ''))(m)];
  if (m.kind === 'rate_limited') return [`${m.agent} is rate-limited`, 'It waits for the limit to reset.'];
  return [`${m.agent} is waiting for you`, 'It finished its turn.'];
}

async function shown(m) {
  if (m.kind === 'answered') {
    for (const n of await self.registration.getNotifications({ tag: tagOf(m) })) n.close();
    return;
  }
  const [title, body] = describe(m);
  const answerable = m.kind === 'needs_you' && m.need === 'permission' && m.request;
  await self.registration.showNotification(title, {
    body,
    tag: tagOf(m),
    data: m,
    requireInteraction: m.kind === 'needs_you',
    actions: answerable ? [{ action: 'allow', title: 'Allow' }, { action: 'deny', title: 'Deny' }] : [],
  });
}

self.addEventListener('push', (event) => {
  let m;
  try {
    m = event.data?.json();
  } catch {
    return;
  }
  if (!m || typeof m.agent !== 'string' || typeof m.kind !== 'string') return;
  event.waitUntil(shown(m));
});

/** Answers a permission from its notification, with this phone's token, as the window's card does. */
async function answer(m, allow) {
  const token = await (await caches.open(PHONE)).match(TOKEN).then((r) => r?.text());
  if (!token) return open(m.agent);
  const at = m.agent.lastIndexOf('@');
  const [name, machine] = at > 0 ? [m.agent.slice(0, at), m.agent.slice(at + 1)] : [m.agent, null];
  const command = { command: 'answer', session_id: name, request_id: m.request, decision: allow ? 'allow' : 'deny' };
  if (!allow) command.message = 'The user said no (from the phone).';
  const body = machine ? { command: 'on_machine', machine, forward: command } : command;
  const response = await fetch('/api/command', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  }).catch(() => null);
  if (response?.ok) return undefined;
  const refused = await response?.json().catch(() => ({}));
  const why = refused?.code === 'not_pending' ? 'It was answered elsewhere.' : refused?.message ?? 'The hub could not be reached.';
  return self.registration.showNotification(`${m.agent}: not answered from here`, { body: why, tag: tagOf(m), data: m });
}

/** Brings the app forward with `agent` on screen. */
async function open(agent) {
  const [shown] = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  if (!shown) return self.clients.openWindow('index.html');
  shown.postMessage({ type: 'open', agent });
  return shown.focus();
}

self.addEventListener('notificationclick', (event) => {
  const m = event.notification.data;
  event.notification.close();
  if (!m) return;
  if ((event.action === 'allow' || event.action === 'deny') && m.request) event.waitUntil(answer(m, event.action === 'allow'));
  else event.waitUntil(open(m.agent));
});
