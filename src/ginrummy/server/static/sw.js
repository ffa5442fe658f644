// The service worker of the installable app: it keeps the shell (styles, scripts, catalogues,
// icons, the offline page) so the app starts from it when the network is slow or gone, and
// shows a clear offline page instead of the browser's error. Play itself needs the server:
// the API and the table's socket always go to the network.
const CACHE = "gr-shell-v4";
const OFFLINE = "/offline";
const SHELL = [
  OFFLINE,
  "/static/css/app.css",
  "/static/css/cards.css",
  "/static/css/matches.css",
  "/static/css/overlays.css",
  "/static/css/phones.css",
  "/static/css/table.css",
  "/static/css/tables.css",
  "/static/manifest.webmanifest",
  "/static/icons/icon.svg",
  "/static/icons/icon-192.png",
  "/static/icons/icon-512.png",
  "/static/i18n/en.json",
  "/static/i18n/vi.json",
  "/static/js/analysis.js",
  "/static/js/api.js",
  "/static/js/cards.js",
  "/static/js/home.js",
  "/static/js/game-choice.js",
  "/static/js/i18n.js",
  "/static/js/matches.js",
  "/static/js/melds.js",
  "/static/js/moves.js",
  "/static/js/names.js",
  "/static/js/offline.js",
  "/static/js/reasons.js",
  "/static/js/replay.js",
  "/static/js/replay/player.js",
  "/static/js/replay/tables.js",
  "/static/js/room.js",
  "/static/js/showdown.js",
  "/static/js/sound.js",
  "/static/js/table.js",
  "/static/js/table/board.js",
  "/static/js/table/card-drag.js",
  "/static/js/table/center.js",
  "/static/js/table/choices.js",
  "/static/js/table/end.js",
  "/static/js/table/forfeit.js",
  "/static/js/table/hand.js",
  "/static/js/table/input.js",
  "/static/js/table/knock.js",
  "/static/js/table/motion.js",
  "/static/js/table/overlays.js",
  "/static/js/table/reactions.js",
  "/static/js/table/seats.js",
  "/static/js/table/socket.js",
  "/static/js/table/state.js",
  "/static/js/ui.js",
  "/static/js/verify.js",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

/** The network first (the server is the truth), the kept copy when it cannot be reached. */
async function fromNetwork(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && request.method === "GET") cache.put(request, response.clone());
    return response;
  } catch (error) {
    const kept = await cache.match(request);
    if (kept) return kept;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    // A page: from the network; offline, the offline page says so and offers to try again.
    event.respondWith(
      fetch(request).catch(async () => (await caches.match(OFFLINE)) || new Response("offline", { status: 503 })),
    );
    return;
  }
  if (url.pathname.startsWith("/static/")) event.respondWith(fromNetwork(request));
});
