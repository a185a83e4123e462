// Wiring of the game page: the state, the language, the screens and routing, the board,
// and which mode gets the board's actions. The modes are local.js, vs-computer.js and
// online.js; the panels are panels.js; the state's shape is page-state.js.

import { bindConfirmDialog } from './dialog.js';
import { $, $button, all } from './dom.js';
import { pickLanguage, translator } from './i18n.js';
import { bindLocalControls, playLocal, startLocal } from './local.js';
import { createNotifier } from './notify.js';
import { startClockTicker } from './clock-view.js';
import { bindLobby, view as viewLobby } from './lobby.js';
import { bindOnlineControls, createRoom, explainInactive, onlineCanAct, openRoom, sendAction } from './online.js';
import { createPageState } from './page-state.js';
import { renderPage, viewNotice } from './panels.js';
import { bindReviewControls, leaveReview, openRecordReview, openReview, reviewFromHash, reviewFromPath } from './review.js';
import { bindRecordTools } from './records.js';
import { loadRules } from './rules.js';
import { roomFromPath, safeStorage } from './storage.js';
import { bindScreenReader } from './screen-reader.js';
import { bindOffline } from './offline.js';
import { bindThemeSwitch } from './theme.js';
import { bindComputerControls, startComputer } from './vs-computer.js';
import { bindVariantChooser, viewRules } from './variant.js';
import { mountBoard } from './widget.js';

const storage = safeStorage(() => window.localStorage);
const lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
const page = createPageState(lang, translator(lang));
const notifier = createNotifier({ storage });
const theme = bindThemeSwitch($button('theme'), storage);
startClockTicker(() => page, () => notifier.lowTime());

/** One action from the board or the Command field, to the mode that plays it. @param {string} action */
function act(action) {
  if (page.mode === 'online') return sendAction(app, action);
  if (page.mode === 'computer') return page.computer?.play(action);
  return playLocal(app, action);
}

/** Whether the board takes an action now. */
function canAct() {
  return page.mode === 'local' ? true : page.mode === 'computer' ? !!page.computer?.canAct() : page.mode === 'online' && onlineCanAct(page.online);
}

/** @type {import('./page-state.js').App} */
const app = {
  page,
  storage,
  render() {
    renderPage(page, storage);
    viewRules(page, storage);
    if (!$('start').hidden) viewLobby(app);
    notifier.update(page);
    screenReader?.update(page);
  },
  setNotice(key, text = null) {
    page.notice = key || text ? { key, text } : null;
    viewNotice(page);
  },
  showScreen(name) {
    // Another screen opens at its top (the header in view), wherever the last one was scrolled.
    if (document.body.dataset.screen !== name) window.scrollTo(0, 0);
    $('start').hidden = name !== 'start';
    $('game').hidden = name !== 'game';
    document.body.dataset.screen = name;
  },
  ensureBoard(topology) {
    // Another variant's board is drawn afresh from its topology.
    if (page.board && JSON.stringify(page.topology) === JSON.stringify(topology)) return;
    $('board-host').replaceChildren();
    page.topology = topology;
    page.board = mountBoard($('board-host'), {
      topology,
      t: page.t,
      onAction: act,
      canAct,
      onSelection: () => app.render(),
      onInactive: () => explainInactive(app),
    });
  },
  async rules() {
    try {
      return await loadRules();
    } catch (error) {
      console.warn('Mill: the rules did not load', error);
      app.showScreen('start');
      app.setNotice('error.wasm');
      return null;
    }
  },
  route,
  leave: leaveGame,
};

function applyLanguage() {
  page.t = translator(page.lang);
  document.documentElement.lang = page.lang;
  for (const node of all('[data-i18n]')) node.textContent = page.t(node.dataset.i18n);
  for (const node of all('[data-i18n-aria]')) node.setAttribute('aria-label', page.t(node.dataset.i18nAria));
  // The switch is written in the other language; say so for screen readers.
  $('lang').lang = page.lang === 'en' ? 'ru' : 'en';
  page.board?.setTranslator(page.t);
  theme.refresh((next) => page.t(next === 'light' ? 'theme.toLight' : 'theme.toDark'));
  showSound();
  app.render();
}

function showSound() {
  $('sound').setAttribute('aria-pressed', String(!notifier.muted));
}

/** After choosing a mode, the keyboard focus goes to the board rather than the page. */
function focusGame() {
  if (page.mode && !$('game').hidden) page.board?.focus();
}

function leaveGame() {
  page.online?.conn?.close();
  page.online = null;
  leaveReview(page);
  page.review = null;
  page.computer?.stop();
  page.computer = null;
  page.mode = null;
  page.snapshot = null;
  app.setNotice(null);
}

async function route() {
  leaveGame();
  const review = reviewFromPath(location.pathname);
  if (review) return openReview(app, review.roomId, review.round);
  const linked = reviewFromHash(location.hash);
  if (linked) return openRecordReview(app, linked);
  const roomId = roomFromPath(location.pathname);
  if (roomId) return openRoom(app, roomId);
  if (location.hash === '#local') return startLocal(app);
  if (location.hash === '#computer') return startComputer(app);
  app.showScreen('start');
  if (!storage.ok) app.setNotice('error.storage');
  app.render();
}

/** @param {string} url */
async function go(url) {
  history.pushState(null, '', url);
  await route();
  focusGame();
}

$('lang').addEventListener('click', () => {
  page.lang = page.lang === 'en' ? 'ru' : 'en';
  storage.set('lang', page.lang);
  applyLanguage();
});
window.addEventListener('popstate', route);
$('start-local').addEventListener('click', () => go('/#local'));
$('start-friend').addEventListener('click', () => createRoom(app).then(focusGame));
$('sound').addEventListener('click', () => {
  notifier.setMuted(!notifier.muted);
  showSound();
});
$('start-computer').addEventListener('click', () => go('/#computer'));
$('menu').addEventListener('click', () => go('/'));
bindLocalControls(app);
bindComputerControls(app);
bindOnlineControls(app);
bindLobby(app);
bindReviewControls(app);
bindConfirmDialog();
bindRecordTools(app);
bindVariantChooser(app);
const screenReader = bindScreenReader(app, {
  act,
  canAct,
  mute(muted) {
    notifier.setMuted(muted);
    showSound();
  },
});

bindOffline();

applyLanguage();
route().catch((error) => console.error(error));
