// Wiring of /account: who is signed in (GET /api/me), sign-in and sign-up forms, sign
// out, sign out everywhere, deleting the account (docs/PROTOCOL.md, "Accounts"). The
// session is an HttpOnly cookie the page never sees; it only asks the server.
// Passkeys come first where the browser can use them (passkey.js); the password forms
// stay for every browser.

import { errorText } from './account-logic.js';
import { accountTranslator } from './account-text.js';
import { pickLanguage } from './i18n.js';
import { browserErrorKey, createPasskey, getPasskey, passkeysSupported } from './passkey.js';
import { safeStorage } from './storage.js';
import { bindThemeSwitch } from './theme.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const storage = safeStorage(() => window.localStorage);
const theme = bindThemeSwitch(/** @type {HTMLButtonElement} */ ($('theme')), storage);
let lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
let t = accountTranslator(lang);
const canPasskey = passkeysSupported(window);

/** The page's state: who is signed in (null: nobody, undefined: not known yet) and the status line. */
const state = {
  /** @type {string | null | undefined} */ name: undefined,
  /** @type {{ key: string, params?: Record<string, string>, tone?: string }} */ status: { key: '' },
  busy: false,
};

/**
 * One JSON request to the API; resolves to the status and body (`{}` when there is none).
 * @param {string} method @param {string} path @param {unknown} [body]
 */
async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const text = await res.text();
  /** @type {Record<string, unknown>} */
  let json = {};
  try { json = text ? JSON.parse(text) : {}; } catch { json = {}; }
  return { status: res.status, json };
}

function draw() {
  $('signed-in').hidden = !state.name;
  $('signed-out').hidden = state.name !== null;
  if (state.name) {
    $('signed-in-as').textContent = t('account.signedIn', { name: state.name });
    /** @type {HTMLAnchorElement} */ ($('my-profile')).href = `/@/${encodeURIComponent(state.name)}`;
  }
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-passkey]'))) node.hidden = !canPasskey;
  $('passkey-none').hidden = canPasskey || state.name === undefined;
  const status = $('account-status');
  status.textContent = state.status.key ? t(state.status.key, state.status.params) : '';
  status.dataset.tone = state.status.tone ?? '';
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('main button'))) b.disabled = state.busy;
}

function applyLanguage() {
  t = accountTranslator(lang);
  document.documentElement.lang = lang;
  document.title = t('account.doc.title');
  document.querySelector('meta[name="description"]')?.setAttribute('content', t('account.doc.description'));
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-pt]'))) node.textContent = t(node.dataset.pt ?? '');
  $('lang').lang = lang === 'en' ? 'ru' : 'en';
  theme.refresh((next) => t(next === 'light' ? 'theme.toLight' : 'theme.toDark'));
  draw();
}

/**
 * Runs one request with the buttons off; its refusal goes to the status line.
 * @param {() => Promise<{ status: number, json: Record<string, unknown> }>} send
 * @param {number} ok the status that means it worked
 * @param {(json: Record<string, unknown>) => void} done
 */
async function act(send, ok, done) {
  state.busy = true;
  state.status = { key: 'account.working' };
  draw();
  try {
    const { status, json } = await send();
    if (status === ok) done(json);
    else state.status = { ...errorText(json.code), tone: 'error' };
  } catch {
    state.status = { key: 'account.error.network', tone: 'error' };
  }
  state.busy = false;
  draw();
}

/**
 * One passkey ceremony: the server's options, the browser's prompt, the server's check.
 * @param {{ start: string, body?: unknown, finish: string, ok: number }} paths
 * @param {(options: unknown) => Promise<unknown>} prompt the browser's part
 * @param {(json: Record<string, unknown>) => void} done
 */
async function passkeyCeremony(paths, prompt, done) {
  state.busy = true;
  state.status = { key: 'account.passkey.waiting' };
  draw();
  try {
    const start = await api('POST', paths.start, paths.body);
    if (start.status !== 200) {
      state.status = { ...errorText(start.json.code), tone: 'error' };
      return;
    }
    let credential;
    try {
      credential = await prompt(start.json.options);
    } catch (error) {
      state.status = { key: browserErrorKey(error), tone: 'error' };
      return;
    }
    state.status = { key: 'account.working' };
    draw();
    const finish = await api('POST', paths.finish, { ceremony: start.json.ceremony, credential });
    if (finish.status === paths.ok) done(finish.json);
    else state.status = { ...errorText(finish.json.code), tone: 'error' };
  } catch {
    state.status = { key: 'account.error.network', tone: 'error' };
  } finally {
    state.busy = false;
    draw();
  }
}

$('passkey-sign-in').addEventListener('click', () => passkeyCeremony(
  { start: '/api/passkey/login/start', finish: '/api/passkey/login/finish', ok: 200 },
  getPasskey,
  (json) => {
    state.name = String(json.name);
    state.status = { key: 'account.done.signedIn', params: { name: state.name } };
  },
));
$('passkey-sign-up').addEventListener('click', () => {
  const input = /** @type {HTMLInputElement} */ ($('sign-up-name'));
  if (!input.reportValidity()) return;
  passkeyCeremony(
    { start: '/api/passkey/register/start', body: { name: input.value.trim() }, finish: '/api/passkey/register/finish', ok: 201 },
    createPasskey,
    (json) => {
      state.name = String(json.name);
      state.status = { key: 'account.done.signedUp', params: { name: state.name } };
      /** @type {HTMLFormElement} */ ($('sign-up-form')).reset();
    },
  );
});
$('passkey-add').addEventListener('click', () => passkeyCeremony(
  { start: '/api/passkey/register/start', body: {}, finish: '/api/passkey/register/finish', ok: 200 },
  createPasskey,
  () => { state.status = { key: 'account.done.passkeyAdded' }; },
));

/** @param {HTMLFormElement} form */
const fields = (form) => {
  const data = new FormData(form);
  return { name: String(data.get('name') ?? '').trim(), password: String(data.get('password') ?? '') };
};

/** @param {string} id @param {(form: HTMLFormElement) => void} handler */
function onSubmit(id, handler) {
  const form = /** @type {HTMLFormElement} */ ($(id));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    handler(form);
  });
}

onSubmit('sign-in-form', (form) => act(() => api('POST', '/api/session', fields(form)), 200, (json) => {
  state.name = String(json.name);
  state.status = { key: 'account.done.signedIn', params: { name: state.name } };
  form.reset();
}));
onSubmit('sign-up-form', (form) => act(() => api('POST', '/api/account', fields(form)), 201, (json) => {
  state.name = String(json.name);
  state.status = { key: 'account.done.signedUp', params: { name: state.name } };
  form.reset();
}));
onSubmit('delete-form', (form) => act(() => api('DELETE', '/api/account', { password: fields(form).password }), 204, () => {
  state.name = null;
  state.status = { key: 'account.done.deleted' };
  form.reset();
}));
$('sign-out').addEventListener('click', () => act(() => api('DELETE', '/api/session'), 204, () => {
  state.name = null;
  state.status = { key: 'account.done.signedOut' };
}));
$('sign-out-everywhere').addEventListener('click', () => act(() => api('DELETE', '/api/sessions'), 204, () => {
  state.name = null;
  state.status = { key: 'account.done.signedOut' };
}));
$('lang').addEventListener('click', () => {
  lang = lang === 'en' ? 'ru' : 'en';
  storage.set('lang', lang);
  applyLanguage();
});

applyLanguage();
api('GET', '/api/me')
  .then(({ status, json }) => { state.name = status === 200 ? String(json.name) : null; })
  .catch(() => {
    state.name = null;
    state.status = { key: 'account.error.network', tone: 'error' };
  })
  .finally(() => {
    draw();
    document.body.dataset.ready = 'true';
  });
