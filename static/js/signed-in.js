// Who is signed in on this page (`GET /api/session`, which answers `{"name": null}`
// rather than a 401 when nobody is, read once at start-up and again when the
// page comes back into view: the account page may have signed in or out meanwhile), and
// the header's link to /account that says so: the signed-in name, or "Sign in". The lobby
// offers rated games only to a signed-in person (lobby.js).

import { $ } from './dom.js';
import { signedInName } from './cards-logic.js';

/** @type {string | null} */
let name = null;

/** The signed-in name, or null (anonymous, or not known yet). */
export function signedIn() {
  return name;
}

/**
 * Reads who is signed in; `changed` is called when that differs from what the page knew.
 * @param {() => void} changed
 */
export async function readSignedIn(changed) {
  // Offline, nothing to ask (and no failed request in the console): keep what the page knew.
  if (navigator.onLine === false) return;
  let now = null;
  try {
    const res = await fetch('/api/session', { cache: 'no-store', credentials: 'same-origin' });
    now = signedInName(res.status, await res.json().catch(() => null));
  } catch {
    // Offline or the server away: keep what the page knew.
    return;
  }
  if (now !== name) {
    name = now;
    changed();
  }
}

/**
 * Draws the header's account link in the page's language.
 * @param {import('./types.js').Translate} t
 */
export function viewAccountLink(t) {
  const label = $('account-link-name');
  const text = name ?? t('account.link.signIn');
  if (label.textContent !== text) label.textContent = text;
  // Written by code, not by the language switch's pass over data-i18n.
  delete label.dataset.i18n;
  const as = $('account-link-as');
  as.hidden = !name;
  as.textContent = name ? `${t('account.link.as')} ` : '';
  $('account-link').title = name ? `${t('account.link.as')} ${name}` : t('account.link.signIn');
}

/**
 * Reads who is signed in now and whenever the page comes back into view.
 * @param {() => void} changed
 */
export function bindSignedIn(changed) {
  readSignedIn(changed);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') readSignedIn(changed);
  });
}
