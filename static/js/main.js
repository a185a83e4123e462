// Wiring: screens, modes, panels and buttons. Local play asks the WebAssembly rules;
// online play asks the server; the board component (widget.js) is the same for both.

import { blankSnapshot, newGameNeedsConfirm, other, recordRows, statusOf } from './board.js';
import { computerStatus, createComputer, engineWorker, loadSettings, randomSeed, resultForPerson, saveSettings } from './computer.js';
import { pickLanguage, translator } from './i18n.js';
import { connectRoom } from './net.js';
import { command, commandIds, onlineView, snapshotFromState } from './protocol.js';
import { loadRules, localGame } from './rules.js';
import { forgetGame, hasProgress, loadGame, rememberSeat, roomFromPath, safeStorage, saveGame, seatFor } from './state.js';
import { mountBoard } from './widget.js';

const $ = (id) => document.getElementById(id);
const storage = safeStorage(() => window.localStorage);
// Seat keys also live here, so a page without storage keeps its seat until it is closed.
const memorySeats = new Map();

let lang = pickLanguage(storage.get('lang'), navigator.languages ?? [navigator.language]);
let t = translator(lang);

const page = {
  mode: null, // 'local' | 'online' | 'computer'
  game: null, // local: the WasmGame wrapper
  board: null,
  topology: null,
  snapshot: null,
  online: null,
  computer: null, // vs computer: the controller (computer.js)
  notice: null,
};

// ---------------------------------------------------------------- language

function applyLanguage() {
  t = translator(lang);
  document.documentElement.lang = lang;
  document.title = t('app.title');
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll('[data-i18n-aria]')) node.setAttribute('aria-label', t(node.dataset.i18nAria));
  // The switch is written in the other language; say so for screen readers.
  $('lang').lang = lang === 'en' ? 'ru' : 'en';
  page.board?.setTranslator(t);
  render();
}

$('lang').addEventListener('click', () => {
  lang = lang === 'en' ? 'ru' : 'en';
  storage.set('lang', lang);
  applyLanguage();
});

// ---------------------------------------------------------------- screens and routing

function showScreen(name) {
  $('start').hidden = name !== 'start';
  $('game').hidden = name !== 'game';
  document.body.dataset.screen = name;
}

function leaveGame() {
  page.online?.conn?.close();
  page.online = null;
  page.computer?.stop();
  page.computer = null;
  page.mode = null;
  page.snapshot = null;
  setNotice(null);
}

async function route() {
  leaveGame();
  const roomId = roomFromPath(location.pathname);
  if (roomId) return openRoom(roomId);
  if (location.hash === '#local') return startLocal();
  if (location.hash === '#computer') return startComputer();
  showScreen('start');
  if (!storage.ok) setNotice('error.storage');
  render();
}

window.addEventListener('popstate', route);

$('start-local').addEventListener('click', () => {
  history.pushState(null, '', '/#local');
  route();
});
$('start-friend').addEventListener('click', createRoom);
$('start-computer').addEventListener('click', () => {
  history.pushState(null, '', '/#computer');
  route();
});
$('menu').addEventListener('click', () => {
  history.pushState(null, '', '/');
  route();
});

// ---------------------------------------------------------------- the board

/** The WebAssembly rules, or null (then the start screen says the game cannot run here). */
async function rules() {
  try {
    return await loadRules();
  } catch (error) {
    console.warn('Mill: the rules did not load', error);
    showScreen('start');
    setNotice('error.wasm');
    return null;
  }
}

function ensureBoard(topology) {
  if (page.board) return;
  page.topology = topology;
  page.board = mountBoard($('board-host'), {
    topology,
    t,
    onAction: (action) => {
      if (page.mode === 'online') sendAction(action);
      else if (page.mode === 'computer') page.computer.play(action);
      else playLocal(action);
    },
    canAct: () => canAct(),
    onSelection: () => render(),
  });
}

function canAct() {
  if (page.mode === 'local') return true;
  if (page.mode === 'computer') return !!page.computer?.canAct();
  const o = page.online;
  return !!o?.state && o.fresh && !o.replaced && onlineView(o.state, o.seat, o.connection).canAct;
}

// ---------------------------------------------------------------- same device

async function startLocal() {
  const mod = await rules();
  if (!mod) return;
  const game = localGame(mod);
  const saved = loadGame(storage, 'local');
  if (saved && !game.importRecord(saved).ok) forgetGame(storage, 'local');
  page.mode = 'local';
  page.game = game;
  ensureBoard(game.topology);
  showScreen('game');
  refreshLocal();
}

function playLocal(action) {
  const reply = page.game.play(action);
  if (!reply.ok) setNotice(null, reply.error.message);
  saveLocal();
  refreshLocal();
}

function saveLocal() {
  saveGame(storage, 'local', page.game.exportRecord());
}

function refreshLocal() {
  page.snapshot = page.game.snapshot();
  page.board.set(page.snapshot);
  render();
}

$('undo').addEventListener('click', () => {
  if (page.mode === 'computer') return void page.computer.undo();
  if (page.mode !== 'local') return;
  page.game.undo();
  saveLocal();
  refreshLocal();
});

$('new-game').addEventListener('click', async () => {
  const { mode, game, computer } = page;
  if (mode !== 'local' && mode !== 'computer') return;
  // Vs computer the computer's opening placement (the person playing Dark) is no game to lose.
  const opening = computer && computer.settings.human === 'dark' ? 1 : 0;
  if (newGameNeedsConfirm(page.snapshot, opening) && !(await confirmNewGame())) return;
  // The page may have moved on while the question was open.
  if (page.mode !== mode || page.game !== game) return;
  setNotice(null);
  if (mode === 'computer') return void computer.newGame();
  game.restart();
  saveLocal();
  refreshLocal();
});

/**
 * Asks in a modal dialog whether to drop the game in progress, saying why with `reason`
 * (an i18n key). Resolves to true for "Start over".
 */
function confirmNewGame(reason = 'newGame.confirmText') {
  const dialog = $('confirm-new');
  if (dialog.open) return Promise.resolve(false);
  $('confirm-new-text').textContent = t(reason);
  return new Promise((resolve) => {
    pendingAnswer = resolve;
    dialog.showModal();
  });
}

// The answer is given where it is made (a button, Escape, the backdrop), not from the
// dialog's `close` event, which comes a task later and could reach the next question.
let pendingAnswer = null;
function answerNewGame(yes) {
  const resolve = pendingAnswer;
  pendingAnswer = null;
  if ($('confirm-new').open) $('confirm-new').close();
  resolve?.(yes);
}
$('confirm-new-ok').addEventListener('click', () => answerNewGame(true));
$('confirm-new-keep').addEventListener('click', () => answerNewGame(false));
// Escape: the browser closes the dialog; that is a "no".
$('confirm-new').addEventListener('cancel', () => answerNewGame(false));
// A click on the dimmed backdrop (outside the box) is a "no".
$('confirm-new').addEventListener('click', (event) => {
  if (event.target === event.currentTarget) answerNewGame(false);
});
// Closed any other way (Chromium may close on Escape without a cancel event): a "no" —
// unless the dialog is open again, for a newer question this late event is not about.
$('confirm-new').addEventListener('close', (event) => {
  if (!event.currentTarget.open) answerNewGame(false);
});

// ---------------------------------------------------------------- vs computer

// One worker for the page's lifetime; it starts on the first search.
let engine = null;
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startComputer() {
  const mod = await rules();
  if (!mod) return;
  const game = localGame(mod);
  const saved = loadGame(storage, 'computer');
  if (saved && !game.importRecord(saved).ok) forgetGame(storage, 'computer');
  engine ??= engineWorker();
  const computer = createComputer({
    game,
    engine,
    settings: loadSettings(storage, randomSeed()),
    wait,
    newSeed: randomSeed,
    onChange: () => page.computer === computer && refreshLocal(),
    onSave: (record, settings) => {
      saveGame(storage, 'computer', record);
      saveSettings(storage, settings);
    },
    onError: (error) => setNotice(null, t('computer.error', { message: error.message })),
  });
  page.mode = 'computer';
  page.game = game;
  page.computer = computer;
  ensureBoard(game.topology);
  showScreen('game');
  refreshLocal();
  computer.start();
}

for (const input of document.querySelectorAll('input[name="computer-level"]')) {
  // 'click', not 'change': choosing the level already chosen retries a stuck computer.
  input.addEventListener('click', () => {
    setNotice(null);
    page.computer?.setLevel(input.value);
  });
}
for (const input of document.querySelectorAll('input[name="computer-side"]')) {
  input.addEventListener('change', async () => {
    const c = page.computer;
    if (!c) return;
    // Changing colours starts a new game: ask first when there is a game to lose (the
    // choice shows the current colour until the answer is yes).
    if (c.canUndo()) {
      render();
      if (!(await confirmNewGame('computer.sideConfirm')) || page.computer !== c) return;
    }
    setNotice(null);
    c.setHuman(input.value);
  });
}

// ---------------------------------------------------------------- play with a friend

async function createRoom() {
  const button = $('start-friend');
  button.disabled = true;
  setNotice('online.creating');
  try {
    const res = await fetch('/api/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) {
      setNotice(null, t('online.error', { message: body.message ?? res.status }));
      return;
    }
    keepSeat(body.room, { seat: body.seat, key: body.key });
    history.pushState(null, '', `/r/${body.room}`);
    await route();
  } catch (error) {
    setNotice(null, t('online.error', { message: String(error.message ?? error) }));
  } finally {
    button.disabled = false;
  }
}

function keepSeat(roomId, seat) {
  memorySeats.set(roomId, seat);
  rememberSeat(storage, roomId, seat);
}

async function openRoom(roomId) {
  const mod = await rules();
  if (!mod) return;
  ensureBoard(localGame(mod).topology);
  page.mode = 'online';
  page.online = { roomId, seat: null, key: null, state: null, connection: 'connecting', replaced: false, gone: null };
  // Not the previous game's pieces while the room's state is on its way.
  page.snapshot = blankSnapshot();
  page.board.set(page.snapshot);
  showScreen('game');
  render();
  let seat = memorySeats.get(roomId) ?? seatFor(storage, roomId);
  if (!seat) {
    try {
      const res = await fetch(`/api/rooms/${encodeURIComponent(roomId)}/join`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const body = await res.json().catch(() => ({}));
      if (res.ok) {
        seat = { seat: body.seat, key: body.key };
        keepSeat(roomId, seat);
      } else if (res.status === 404) {
        page.online.gone = 'online.roomGone';
        render();
        return;
      } else if (res.status === 409) {
        setNotice('online.full');
      } else {
        setNotice(null, t('online.error', { message: body.message ?? res.status }));
      }
    } catch (error) {
      setNotice(null, t('online.error', { message: String(error.message ?? error) }));
    }
  }
  if (page.online?.roomId !== roomId) return; // left meanwhile
  const o = page.online;
  o.seat = seat?.seat ?? null;
  o.key = seat?.key ?? null;
  o.ids = commandIds();
  o.conn = connectRoom({
    roomId,
    key: o.key,
    onMessage: (msg) => onServerMessage(o, msg),
    onConnection: (status, code) => {
      o.connection = status;
      if (status === 'closed' && code === 4004) o.gone = 'online.roomGone';
      if (status === 'closed' && code === 4001) o.gone = 'online.reload';
      render();
      // The server no longer knows this seat key (the key was forgotten on `bad-key`):
      // open the room afresh, which joins a free seat or watches.
      if (status === 'closed' && code === 4003 && page.online === o) route();
    },
  });
}

function onServerMessage(o, msg) {
  if (page.online !== o) return;
  switch (msg.type) {
    case 'welcome':
      o.seat = msg.seat;
      o.replaced = false;
      // The state held from before the reconnect may be old: wait for the fresh one.
      o.fresh = false;
      break;
    case 'state':
      o.state = msg;
      o.fresh = true;
      page.snapshot = snapshotFromState(msg);
      page.board.set(page.snapshot);
      break;
    case 'replaced':
      o.replaced = true;
      break;
    case 'error':
      if (msg.code === 'bad-key') {
        storage.remove(`seat.${o.roomId}`);
        memorySeats.delete(o.roomId);
      }
      if (msg.code === 'unknown-room') o.gone = 'online.roomGone';
      else if (msg.code !== 'stale') setNotice(null, t('online.error', { message: msg.message }));
      break;
    default:
      break; // ack and unknown types: nothing to show
  }
  render();
}

function sendCommand(type, extra = {}) {
  const o = page.online;
  if (!o?.state || !o.conn) return;
  setNotice(null);
  o.conn.send(command(type, o.state, o.ids(), extra));
}

function sendAction(action) {
  sendCommand('action', { action });
}

$('offer-draw').addEventListener('click', () => sendCommand('offer-draw'));
$('accept-draw').addEventListener('click', () => sendCommand('accept-draw'));
$('decline-draw').addEventListener('click', () => sendCommand('decline-draw'));
$('new-round').addEventListener('click', () => sendCommand('new-round'));
$('resign').addEventListener('click', () => {
  if (window.confirm(t('online.resignConfirm'))) sendCommand('resign');
});
$('take-back').addEventListener('click', () => {
  page.online?.conn?.reconnect();
});
$('copy-invite').addEventListener('click', async () => {
  const input = $('invite-link');
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand?.('copy');
  }
  const button = $('copy-invite');
  button.textContent = t('online.copied');
  setTimeout(() => (button.textContent = t('online.copy')), 1500);
});

// ---------------------------------------------------------------- panels

function setNotice(key, text = null) {
  page.notice = key || text ? { key, text } : null;
  renderNotice();
}

function renderNotice() {
  const box = $('notice');
  const n = page.notice;
  box.hidden = !n;
  box.textContent = n ? (n.key ? t(n.key) : n.text) : '';
}

function render() {
  renderNotice();
  // "Same device" resumes the saved game; its hint says so.
  $('start-local-hint').textContent = t(hasProgress(storage, 'local') ? 'start.continue' : 'start.local.hint');
  $('start-computer-hint').textContent = t(hasProgress(storage, 'computer') ? 'start.continue' : 'start.computer.hint');
  if (page.mode === null) return;
  const snap = page.snapshot;
  const o = page.mode === 'online' ? page.online : null;
  const view = o?.state ? onlineView(o.state, o.seat, o.connection) : null;
  const vs = page.mode === 'computer' ? page.computer : null;
  const human = vs?.settings.human;
  document.body.dataset.mode = page.mode;

  // Player cards.
  for (const side of ['light', 'dark']) {
    const card = document.querySelector(`.card[data-side="${side}"]`);
    card.querySelector('.name').textContent = t(`color.${side}`);
    const you = card.querySelector('.you');
    you.hidden = !(o && o.seat === side) && !vs;
    you.textContent = vs && side !== human ? t('card.computer') : t('card.you');
    you.classList.toggle('computer', !!vs && side !== human);
    const presence = card.querySelector('.presence');
    const seatInfo = o?.state?.seats?.[side];
    presence.hidden = !o || !seatInfo?.taken;
    presence.classList.toggle('online', !!seatInfo?.online);
    presence.textContent = seatInfo?.online ? t('online.present') : t('online.away');
    if (!snap) continue;
    const active = !snap.outcome && snap.turn === side;
    card.classList.toggle('active', active);
    card.classList.toggle('winner', snap.outcome?.winner === side);
    card.querySelector('.phase').textContent = active ? `${t('card.toMove')} · ${t(`phase.${snap.phase[side]}`)}` : t(`phase.${snap.phase[side]}`);
    card.querySelector('.in-hand b').textContent = snap.inHand[side];
    card.querySelector('.in-hand span').textContent = t('card.inHand');
    card.querySelector('.on-board b').textContent = snap.onBoard[side];
    card.querySelector('.on-board span').textContent = t('card.onBoard');
    const hand = card.querySelector('.hand');
    if (hand.childElementCount !== snap.inHand[side]) {
      hand.replaceChildren(...Array.from({ length: snap.inHand[side] }, () => document.createElement('i')));
    }
  }

  // Status line.
  const status = $('status');
  let text;
  let tone = 'act';
  if (o?.gone) [text, tone] = [t(o.gone), 'alert'];
  else if (o?.replaced) [text, tone] = [t('online.replaced'), 'alert'];
  else if (o && o.connection === 'reconnecting') [text, tone] = [t('online.reconnecting'), 'alert'];
  else if (o && (!o.state || !o.fresh || o.connection !== 'open')) [text, tone] = [t('online.connecting'), 'wait'];
  else if (view && !view.friendJoined && !snap?.outcome) [text, tone] = [t('online.waitingFriend'), 'wait'];
  else if (view && !view.opponentOnline && !snap?.outcome) [text, tone] = [t('online.opponentAway', { side: t(`color.${view.opponent}`) }), 'wait'];
  else if (snap) {
    // A spectator (no seat) is told whose move it is, like a player waiting.
    const s = (vs && computerStatus(snap, human, vs.failed)) || statusOf(snap, page.board?.ui ?? { selected: null }, o ? o.seat ?? 'spectator' : null);
    const params = Object.fromEntries(Object.entries(s.params).map(([k, v]) => [k, t(`color.${v}`)]));
    text = t(s.key, params);
    tone = s.tone;
  } else text = t('status.loading');
  // Only a changed text is written, so screen readers announce news, not every redraw.
  if (status.textContent !== text) status.textContent = text;
  status.dataset.tone = tone;

  // Result.
  const result = $('result');
  result.hidden = !snap?.outcome;
  if (snap?.outcome) {
    const out = snap.outcome;
    $('result-title').textContent = out.kind === 'win' ? t('result.win', { side: t(`color.${out.winner}`) }) : t('result.draw');
    if (vs && resultForPerson(snap, human)) $('result-title').textContent = t(resultForPerson(snap, human));
    $('result-reason').textContent = t(`reason.${out.reason}`, { loser: out.winner ? t(`color.${other(out.winner)}`) : '' });
  }

  // Record.
  const list = $('record');
  const rows = recordRows(snap?.record ?? []);
  list.replaceChildren(
    ...rows.map((row) => {
      const li = document.createElement('li');
      const n = document.createElement('span');
      n.className = 'n';
      n.textContent = `${row.n}.`;
      const a = document.createElement('span');
      a.textContent = row.light;
      const b = document.createElement('span');
      b.textContent = row.dark ?? '';
      li.append(n, a, b);
      return li;
    }),
  );
  $('record-empty').hidden = rows.length > 0;
  // Keep the latest turn in view inside the list only: scrolling the page would make a
  // phone jump away from the board after every move.
  list.scrollTop = list.scrollHeight;

  // Controls.
  const local = page.mode === 'local' || !!vs;
  $('local-controls').hidden = !local;
  $('online-controls').hidden = local;
  $('computer-controls').hidden = !vs;
  if (vs) {
    for (const input of document.querySelectorAll('input[name="computer-level"]')) input.checked = input.value === vs.settings.level;
    for (const input of document.querySelectorAll('input[name="computer-side"]')) input.checked = input.value === human;
  }
  if (local) {
    $('undo').disabled = vs ? !vs.canUndo() : !snap || snap.actions === 0;
    $('new-game').classList.toggle('primary', !!snap?.outcome);
  }
  const invite = $('invite');
  invite.hidden = !(o && o.seat && !o.gone && (!view || !view.friendJoined));
  if (o) $('invite-link').value = `${location.origin}/r/${o.roomId}`;
  if (o) {
    const v = view ?? {};
    $('offer-draw').hidden = !v.canOfferDraw && !v.drawOfferedByMe;
    $('offer-draw').disabled = !v.canOfferDraw;
    $('offer-draw').textContent = v.drawOfferedByMe ? t('online.drawOffered') : t('online.offerDraw');
    $('draw-offer').hidden = !v.drawOfferedToMe;
    $('draw-offer-text').textContent = t('online.drawOfferedToYou', { side: t(`color.${v.opponent ?? 'dark'}`) });
    $('resign').hidden = !v.canResign;
    $('new-round').hidden = !(v.canAskNewRound || v.askedNewRound);
    $('new-round').disabled = !v.canAskNewRound;
    $('new-round-note').hidden = !(v.askedNewRound || v.opponentAskedNewRound);
    $('new-round-note').textContent = v.askedNewRound
      ? t('online.newRoundAsked', { side: t(`color.${v.opponent}`) })
      : t('online.newRoundOffered', { side: t(`color.${v.opponent ?? 'dark'}`) });
    $('take-back').hidden = !o.replaced;
    $('seat-note').hidden = !o.seat;
    $('seat-note').textContent = o.seat ? t('online.youAre', { side: t(`color.${o.seat}`) }) : '';
  }
}

// ---------------------------------------------------------------- start

applyLanguage();
route().catch((error) => console.error(error));
