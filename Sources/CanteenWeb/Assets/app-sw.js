// The employee page's service worker (served at /app-sw.js, scope /app): keeps the page's own
// files so that a phone opens /app from its home screen without a network. Network first (the
// files are revalidated on every load anyway), the kept copy when the network fails. API calls
// are never intercepted: offline, the page itself shows the last menu it read, read-only.
'use strict';

const CACHE = 'canteen-app-v1';
const SHELL = ['/app', '/assets/canteen.css', '/assets/app.css', '/assets/canteen.js', '/assets/app.js',
  '/assets/app.webmanifest', '/assets/app-icon-192.png', '/assets/app-icon-512.png'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  const isPage = event.request.mode === 'navigate' && url.pathname === '/app';
  if (!isPage && !SHELL.includes(url.pathname)) return;
  const key = isPage ? '/app' : url.pathname;
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(key, copy));
    }
    return response;
  }).catch(() => caches.match(key).then((kept) => kept || Response.error())));
});

// A tap on the "order ready" notification brings the page forward.
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(self.clients.matchAll({ type: 'window' }).then((windows) => {
    const open = windows.find((client) => new URL(client.url).pathname === '/app');
    return open ? open.focus() : self.clients.openWindow('/app');
  }));
});
