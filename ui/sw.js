// The installed app's service worker (a phone's home screen): it keeps the page's own files, so the app
// opens at once and says "offline" rather than nothing when the tunnel is down. The page's files are
// taken from the hub first and kept as they come; only when the hub cannot be reached is the kept copy
// used. Nothing of the API or the feed is ever kept: conversations come from the hub, with the token.

const CACHE = 'clawmux-ui-v1';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(['index.html', 'css/app.css', 'js/main.js'])).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
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
