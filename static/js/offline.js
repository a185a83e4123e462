// Owns the page's side of working offline (the worker itself is static/sw.js): registering
// the service worker where the server versions its files, the offer "A new version is
// ready — reload" when a new release's worker has kept its files and waits (reloading hands
// over to it: the whole page then comes from the new release, never a mix), and asking the
// worker to keep a rule set's endgame tables once the person plays Hard on it.

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
  // The puzzles page has no offer: its new release waits until the old one's pages close.
  const offer = /** @type {HTMLElement | null} */ ($('update'));
  /** @param {ServiceWorker | null} worker */
  const show = (worker) => {
    // The first worker of a page that had none is no new version.
    if (!worker || !sw.controller || !offer) return;
    offer.hidden = false;
    $button('update-reload').onclick = () => worker.postMessage('take-over');
  };
  let reloading = false;
  sw.addEventListener('controllerchange', () => {
    if (reloading || !offer || offer.hidden) return;
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

/** The rule sets whose tables this page has asked the worker to keep. */
const tablesAsked = new Set();

/**
 * Asks the worker to keep the endgame tables of `rules` (the manifest's name: "nine") for
 * play with no network; once a page, and nothing where there is no worker.
 * @param {string} rules
 */
export function keepTablesOffline(rules) {
  const sw = navigator.serviceWorker;
  if (!sw || tablesAsked.has(rules) || !new URL(RELEASE_MARK, location.href).searchParams.has('v')) return;
  tablesAsked.add(rules);
  sw.ready.then((registration) => registration.active?.postMessage({ keepTables: rules })).catch(() => tablesAsked.delete(rules));
}
