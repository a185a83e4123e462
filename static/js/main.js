// Wiring of the game page: the state, the language, the screens and routing, the board,
// and which mode gets the board's actions. The modes are local.js, vs-computer.js and
// online.js; the panels are panels.js; the state's shape is page-state.js.

import { bindArenas, viewArenas } from './arenas-start.js';
import { bindConfirmDialog } from './dialog.js';
import { $, $button, all } from './dom.js';
import { pickLanguage, translator } from './i18n.js';
import { bindLocalControls, playLocal, startLocal } from './local.js';
import { createNotifier } from './notify.js';
import { bindClockChoice, startClockTicker } from './clock-view.js';
import { bindLobby, view as viewLobby } from './lobby.js';
import { loadMyGames, viewMyGames } from './my-games.js';
import { createPageState } from './page-state.js';
import { renderPage, viewNotice } from './panels.js';
import { bindSignedIn } from './signed-in.js';
import { computerPart, loadOnClick, onlinePart, recordsPart, reviewPart, screenReaderPart } from './later.js';
import { reviewFromHash, reviewFromPath } from './review-links.js';
import { loadRules } from './rules.js';
import { roomFromPath, safeStorage, SCREEN_READER_KEY } from './storage.js';
import { bindOffline } from './offline.js';
import { bindThemeSwitch } from './theme.js';
import { bindVariantChooser, viewRules } from './variant.js';
import { mountBoard } from './widget.js';

const storage = safeStorage(() => window.localStorage);
const lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
const page = createPageState(lang, translator(lang));
const notifier = createNotifier({ storage });
const theme = bindThemeSwitch($button('theme'), storage);

/** One action from the board or the Command field, to the mode that plays it. @param {string} action */
function act(action) {
  if (page.mode === 'online') return onlinePart.now()?.sendAction(app, action);
  if (page.mode === 'computer') return page.computer?.play(action);
  return playLocal(app, action);
}

/** Whether the board takes an action now. */
function canAct() {
  return page.mode === 'local' ? true : page.mode === 'computer' ? !!page.computer?.canAct() : page.mode === 'online' && !!onlinePart.now()?.onlineCanAct(page.online);
}

/** @type {import('./page-state.js').App} */
const app = {
  page,
  storage,
  render() {
    renderPage(page, storage);
    viewRules(page, storage);
    if (!$('start').hidden) {
      viewLobby(app);
      viewArenas(app);
      viewMyGames(app);
    }
    onlinePart.now()?.viewArenaFollow(app);
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
      onInactive: () => onlinePart.now()?.explainInactive(app),
    });
  },
  focusPlay() {
    const command = $('command');
    if (screenReader?.on && !command.closest('[hidden]')) command.focus();
    else page.board?.focus();
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

/**
 * After choosing a mode, the keyboard focus goes to where the game is played rather than
 * the page: the board, or in screen-reader mode the Command field (a turn is typed there).
 */
function focusGame() {
  if (page.mode && !$('game').hidden) app.focusPlay();
}

function leaveGame() {
  page.online?.conn?.close();
  page.online = null;
  reviewPart.now()?.leaveReview(page);
  page.review = null;
  page.computer?.stop();
  page.computer = null;
  page.mode = null;
  page.snapshot = null;
  app.setNotice(null);
}

/**
 * Opens a mode once its code has loaded (later.js); if it cannot load, the start screen says so.
 * @template T
 * @param {import('./later.js').Part<T>} part @param {(mod: T) => Promise<unknown> | unknown} open
 */
async function openPart(part, open) {
  const mod = await part.load().catch(() => null);
  if (!mod) {
    app.showScreen('start');
    app.setNotice('error.part');
    return;
  }
  await open(mod);
}

async function route() {
  leaveGame();
  const review = reviewFromPath(location.pathname);
  if (review) return openPart(reviewPart, (mod) => mod.openReview(app, review.roomId, review.round));
  const linked = reviewFromHash(location.hash);
  if (linked) return openPart(reviewPart, (mod) => mod.openRecordReview(app, linked));
  const roomId = roomFromPath(location.pathname);
  if (roomId) return openPart(onlinePart, (mod) => mod.openRoom(app, roomId));
  if (location.hash === '#local') return startLocal(app);
  if (location.hash === '#computer') return openPart(computerPart, (mod) => mod.startComputer(app));
  app.showScreen('start');
  if (!storage.ok) app.setNotice('error.storage');
  app.render();
  // A signed-in player's games in progress (none for anyone else).
  loadMyGames(app);
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
$('start-friend').addEventListener('click', () => openPart(onlinePart, (mod) => mod.createRoom(app)).then(focusGame));
$('sound').addEventListener('click', () => {
  notifier.setMuted(!notifier.muted);
  showSound();
});
$('start-computer').addEventListener('click', () => go('/#computer'));
$('menu').addEventListener('click', () => go('/'));
bindLocalControls(app);
computerPart.ready((mod) => mod.bindComputerControls(app));
onlinePart.ready((mod) => mod.bindOnlineControls(app));
reviewPart.ready((mod) => mod.bindReviewControls(app));
loadOnClick(reviewPart, ['review-open'], () => app.setNotice('error.part'));
// Who is signed in: the header's link and the lobby's Rated choice.
bindSignedIn(() => app.render());
bindLobby(app, { inviteFriend: (settings) => openPart(onlinePart, (mod) => mod.createRoom(app, settings)).then(focusGame) });
bindArenas(app);
bindConfirmDialog();
recordsPart.ready((mod) =>
  mod.bindRecordTools(app, {
    // Import in vs computer starts a game from the text: the computer's part, loaded by then.
    startComputerFrom: (...args) => computerPart.load().then((computer) => computer.startComputerFrom(...args)),
  }),
);
loadOnClick(recordsPart, ['copy-record', 'copy-mfen', 'copy-mstate', 'import-record'], () => app.setNotice('error.part'));
bindVariantChooser(app);
// The time control is chosen on the start screen, before online play's code has loaded.
bindClockChoice(page);
/** @type {ReturnType<typeof import('./screen-reader.js').bindScreenReader> | null} */
let screenReader = null;
screenReaderPart.ready((mod) => {
  screenReader = mod.bindScreenReader(app, {
    act,
    canAct,
    mute(muted) {
      notifier.setMuted(muted);
      showSound();
    },
  });
  app.render();
});
// The clocks tick on their own; the person's clock going under ten seconds is heard once
// (the sound honours its switch; the screen reader says it in its mode, once loaded).
startClockTicker(
  () => page,
  () => {
    notifier.lowTime();
    screenReader?.lowTime();
  },
);

// The mode's code loads at start only when it is on; else on the switch's first click.
if (storage.get(SCREEN_READER_KEY) === 'on') screenReaderPart.load().catch(() => app.setNotice('error.part'));
else loadOnClick(screenReaderPart, ['sr-mode'], () => app.setNotice('error.part'));

applyLanguage();
// The offline copy is kept once the first screen is up, not while it loads.
bindOffline(route().catch((error) => console.error(error)));
