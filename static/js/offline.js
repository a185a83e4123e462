// Owns the page's side of working offline (the worker itself is static/sw.js): registering
// the service worker where the server versions its files, and the offer "A new version is
// ready — reload" when a new release's worker has kept its files and waits. Reloading hands
// over to it: the whole page then comes from the new release, never a mix.

import { $, $button } from './dom.js';

// The server rewrites this to '/favicon.svg?v=<version>'; without a version (a plain
// file server, the tests' static server) there is no release to keep and no worker.
const RELEASE_MARK = '/favicon.svg';
// Written so the server does not version it: the worker's own URL must stay the same
// from release to release (its bytes change), served for revalidation, never immutable.
const WORKER_URL = '/sw.js?scope=root';

/**
 * Registers the worker and offers the reload when a new release is ready; once, at start-up.
 * The worker keeps the whole release, which would compete with the first board for the
 * network: it is registered only once `settled` (the first screen is up) and the page is idle.
 * @param {Promise<unknown>} [settled]
 */
export function bindOffline(settled = Promise.resolve()) {
  // Online play needs the network: the start screen says so while there is none (style.css).
  const network = () => (document.body.dataset.network = navigator.onLine ? 'online' : 'offline');
  window.addEventListener('online', network);
  window.addEventListener('offline', network);
  network();
  const sw = navigator.serviceWorker;
  if (!sw || !new URL(RELEASE_MARK, location.href).searchParams.has('v')) return;
  const offer = $('update');
  /** @param {ServiceWorker | null} worker */
  const show = (worker) => {
    // The first worker of a page that had none is no new version.
    if (!worker || !sw.controller) return;
    offer.hidden = false;
    $button('update-reload').onclick = () => worker.postMessage('take-over');
  };
  let reloading = false;
  sw.addEventListener('controllerchange', () => {
    if (reloading || offer.hidden) return;
    reloading = true;
    location.reload();
  });
  settled
    .then(idle)
    .then(() => sw.register(WORKER_URL, { scope: '/', updateViaCache: 'none' }))
    .then((registration) => {
      show(registration.waiting);
      registration.addEventListener('updatefound', () => {
        const worker = registration.installing;
        worker?.addEventListener('statechange', () => {
          if (worker.state === 'installed') show(worker);
        });
      });
    })
    .catch((error) => console.warn('Mill: no offline copy', error));
}

/** Resolves when the page is next idle (soon at the latest). @returns {Promise<void>} */
function idle() {
  return new Promise((resolve) => {
    if ('requestIdleCallback' in window) window.requestIdleCallback(() => resolve(), { timeout: 2000 });
    else setTimeout(resolve, 200);
  });
}
