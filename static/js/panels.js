// Owns drawing the game page's panels from the page state: one small view per panel
// (banner, start hints, player cards, status line, result, move list, controls), each
// reading the state and writing only its own part of the DOM. No panel changes the state.

import { reasonText, recordRows, statusOf } from './board.js';
import { clockResult } from './clock.js';
import { viewClaim, viewClockBadge, viewClocks } from './clock-view.js';
import { computerStatus, resultForPerson } from './computer-status.js';
import { playerCard } from './cards-logic.js';
import { roomHref } from './arena-logic.js';
import { $, $button, $input, find, radios } from './dom.js';
import { pluralKey } from './i18n.js';
import { importedStart } from './local.js';
import { importable } from './page-state.js';
import { onlineView, roomScore, scoreText } from './protocol.js';
import { reviewPart } from './later.js';
import { viewAccountLink } from './signed-in.js';
import { loadedRules } from './rules.js';
import { gameSlot, hasProgress } from './storage.js';
import { chosenRules, rulesOfPosition } from './variant.js';

/** @typedef {import('./page-state.js').PageState} PageState */
/** @typedef {import('./page-state.js').OnlineState} OnlineState */
/** @typedef {import('./storage.js').SafeStorage} SafeStorage */
/** @typedef {import('./types.js').Side} Side */

/**
 * @typedef {object} Frame  what every panel reads, worked out once per redraw
 * @property {PageState} page
 * @property {import('./types.js').Translate} t
 * @property {import('./types.js').Snapshot | null} snap  the board's snapshot
 * @property {OnlineState | null} o  the room, online only
 * @property {ReturnType<typeof onlineView> | null} view  what the room allows this seat, once a state came
 * @property {import('./page-state.js').Computer | null} vs  the computer's controller, vs computer only
 * @property {Side | undefined} human  vs computer: the person's side
 */

/**
 * Redraws every panel.
 * @param {PageState} page @param {SafeStorage} storage
 */
export function renderPage(page, storage) {
  viewNotice(page);
  viewStartHints(page, storage);
  viewAccountLink(page.t);
  if (page.mode === null) return;
  const o = page.mode === 'online' ? page.online : null;
  const vs = page.mode === 'computer' ? page.computer : null;
  /** @type {Frame} */
  const f = {
    page,
    t: page.t,
    snap: page.snapshot,
    o,
    view: o?.state ? onlineView(o.state, o.seat, o.connection) : null,
    vs,
    human: vs?.settings.human,
  };
  document.body.dataset.mode = page.mode;
  // Online with no live connection: the board is drawn inactive (style.css).
  document.body.dataset.offline = String(!!o?.state && o.connection !== 'open');
  for (const side of /** @type {const} */ (['light', 'dark'])) viewCard(f, side);
  viewClocks(page);
  viewClaim(page);
  viewStatus(f);
  viewResult(f);
  viewRecord(f);
  viewRecordTools(page);
  viewLocalControls(f);
  viewOnlineControls(f);
  viewReviewControls(f);
}

/** The banner above the page. @param {PageState} page */
export function viewNotice(page) {
  const box = $('notice');
  const n = page.notice;
  box.hidden = !n;
  box.textContent = n ? (n.key ? page.t(n.key) : n.text) : '';
}

/** "Same device" and "Vs computer" resume the saved game; their hints say so. @param {PageState} page @param {SafeStorage} storage */
function viewStartHints(page, storage) {
  const { t } = page;
  const rules = chosenRules(storage);
  $('start-local-hint').textContent = t(hasProgress(storage, gameSlot('local', rules)) ? 'start.continue' : 'start.local.hint');
  viewClockBadge(page);
  $('start-computer-hint').textContent = t(
    hasProgress(storage, gameSlot('computer', rules)) ? 'start.continue' : 'start.computer.hint',
  );
}

/** One player's card: name, who plays it, presence, phase, counts, the pieces in hand. @param {Frame} f @param {Side} side */
function viewCard({ t, snap, o, vs, human }, side) {
  const card = find(document, `.card[data-side="${side}"]`);
  find(card, '.name').textContent = t(`color.${side}`);
  const you = find(card, '.you');
  you.hidden = !(o && o.seat === side) && !vs;
  you.textContent = vs && side !== human ? t('card.computer') : t('card.you');
  you.classList.toggle('computer', !!vs && side !== human);
  const presence = find(card, '.presence');
  const seatInfo = o?.state?.seats?.[side];
  // Without a connection the last word about the other seat may be stale: say so.
  const known = o?.connection === 'open';
  presence.hidden = !o || !seatInfo?.taken;
  presence.classList.toggle('online', known && !!seatInfo?.online);
  presence.classList.toggle('unknown', !known);
  presence.textContent = !known ? t('online.unknown') : seatInfo?.online ? t('online.present') : t('online.away');
  viewPlayer(card, o ? playerCard(seatInfo) : null, t);
  if (!snap) return;
  const active = !snap.outcome && snap.turn === side;
  card.classList.toggle('active', active);
  card.classList.toggle('winner', snap.outcome?.winner === side);
  find(card, '.phase').textContent = active ? `${t('card.toMove')} · ${t(`phase.${snap.phase[side]}`)}` : t(`phase.${snap.phase[side]}`);
  find(card, '.in-hand b').textContent = String(snap.inHand[side]);
  find(card, '.in-hand span').textContent = t('card.inHand');
  find(card, '.on-board b').textContent = String(snap.onBoard[side]);
  find(card, '.on-board span').textContent = t('card.onBoard');
  const hand = find(card, '.hand');
  if (hand.childElementCount !== snap.inHand[side]) {
    hand.replaceChildren(...Array.from({ length: snap.inHand[side] }, () => document.createElement('i')));
  }
}

/**
 * A card's account line (online, a seat held by an account): the name as a link to its
 * profile, the rating (`1532?` while provisional) and, after a rated round, its change.
 * @param {HTMLElement} card @param {import('./cards-logic.js').PlayerCard | null} player
 * @param {import('./types.js').Translate} t
 */
function viewPlayer(card, player, t) {
  const line = find(card, '.card-player');
  line.hidden = !player;
  if (!player) return;
  const link = /** @type {HTMLAnchorElement} */ (find(card, '.player-name'));
  if (link.getAttribute('href') !== player.profile) link.setAttribute('href', player.profile);
  link.textContent = player.name;
  link.title = t('card.profile', { name: player.name });
  const rating = find(card, '.player-rating');
  rating.hidden = !player.rating;
  rating.textContent = player.rating ?? '';
  rating.title = t('card.rating');
  const change = find(card, '.player-change');
  change.hidden = !player.change;
  change.textContent = player.change ?? '';
  change.title = t('card.change');
  change.classList.toggle('up', !!player.change?.startsWith('+'));
  change.classList.toggle('down', !!player.change?.startsWith('\u2212'));
}

/** The status line: what to do now, or why nothing can be done. @param {Frame} f @returns {[string, string]} text and tone */
function statusText({ page, t, snap, o, view, vs, human }) {
  if (page.mode === 'review') return reviewStatus(page);
  if (o?.gone) return [t(o.gone), 'alert'];
  if (o?.replaced) return [t('online.replaced'), 'alert'];
  if (o && o.connection === 'reconnecting') return [t('online.reconnecting'), 'alert'];
  if (o && (!o.state || !o.fresh || o.connection !== 'open')) return [t('online.connecting'), 'wait'];
  if (view && !view.friendJoined && !snap?.outcome) return [t('online.waitingFriend'), 'wait'];
  if (view && !view.opponentOnline && !snap?.outcome) return [t('online.opponentAway', { side: t(`color.${view.opponent}`) }), 'wait'];
  if (!snap) return [t('status.loading'), 'act'];
  const personal = personalResult(snap, o, vs, human);
  if (personal) return [t(personal), 'result'];
  // A spectator (no seat) is told whose move it is, like a player waiting.
  const s = (vs && computerStatus(snap, human, vs.failed)) || statusOf(snap, page.board?.ui ?? { selected: null }, o ? o.seat ?? 'spectator' : null);
  const params = Object.fromEntries(Object.entries(s.params).map(([k, v]) => [k, t(`color.${v}`)]));
  // Vs computer the person's own turn is "Your turn: …", as online.
  const key = vs && !snap.outcome && snap.turn === human ? s.key.replace(/^status\./, 'status.you.') : onlineWording(s.key, o, snap);
  return [t(key, params), s.tone];
}

/**
 * Online, the status speaks to the person: "Your turn: …" on their own turn, "Watching · …"
 * to a spectator. Elsewhere (both sides on one screen) it names the side.
 * @param {string} key @param {OnlineState | null} o @param {import('./types.js').Snapshot} snap
 */
function onlineWording(key, o, snap) {
  if (!o || snap.outcome) return key;
  if (!o.seat) return { 'status.waitMove': 'status.watch.move', 'status.waitRemove': 'status.watch.remove' }[key] ?? key;
  return snap.turn === o.seat ? key.replace(/^status\./, 'status.you.') : key;
}

/**
 * The result from the person's side, when one side on this screen is theirs: an i18n key
 * ('computer.youWin', 'result.youLose', …) or null (a draw, both sides here, a spectator).
 * @param {import('./types.js').Snapshot} snap @param {OnlineState | null} o
 * @param {import('./page-state.js').Computer | null} vs @param {Side | undefined} human
 */
function personalResult(snap, o, vs, human) {
  if (vs) return resultForPerson(snap, human);
  const out = snap.outcome;
  if (!o?.seat || out?.kind !== 'win') return null;
  return out.winner === o.seat ? 'result.youWin' : 'result.youLose';
}

/** Under review: which position of the game is shown. @param {PageState} page @returns {[string, string]} */
function reviewStatus({ t, review }) {
  const source = review?.source;
  if (review?.error) {
    const key = `review.why.${review.error}`;
    const message = t(key) === key ? t('review.why.network') : t(key);
    return [t(source?.kind === 'round' ? 'review.error' : 'review.gameError', { message }), 'alert'];
  }
  if (!review?.positions.length) return [t(source?.kind === 'round' ? 'online.connecting' : 'status.loading'), 'wait'];
  // Counted in turns: a removal is part of its turn (review.js's stops).
  const mod = reviewPart.now();
  if (!mod) return [t('status.loading'), 'wait'];
  const at = mod.turnCounter(review.at, mod.reviewStops(review.positions, review.ends));
  return [source?.kind === 'round' ? t('review.status', { round: source.round, ...at }) : t('review.statusGame', at), 'wait'];
}

/**
 * "Review the game" where there is a game with a turn played; under review its controls
 * and the engine's panel (review.js's, loaded by then).
 * @param {Frame} f
 */
function viewReviewControls({ page }) {
  const review = page.mode === 'review' ? page.review : null;
  const playing = page.mode === 'local' || page.mode === 'computer' || page.mode === 'online';
  $('review-open').hidden = !(playing && (page.snapshot?.actions ?? 0) > 0);
  $('review-controls').hidden = !review;
  $('analysis').hidden = !review || review.positions.length === 0;
  if (review) reviewPart.now()?.viewReview(page);
}

/**
 * Why the game on screen has no MFEN (the rules' `mfenRefused`), or null: from the game
 * itself, else (online, review) from the rules its position names, once the rules loaded.
 * @param {PageState} page
 */
function mfenRefusedOnScreen(page) {
  if ((page.mode === 'local' || page.mode === 'computer') && page.game) return page.game.rulesInfo().mfenRefused;
  const mod = loadedRules();
  if (!mod || !page.snapshot?.position) return null;
  const info = JSON.parse(mod.rules_info(rulesOfPosition(page.snapshot.position)));
  return info.ok === false ? null : info.mfenRefused ?? null;
}

/**
 * Copy and Import (records.js does them, loaded on their first click) wherever there is a
 * game on screen; Import in same device and vs computer.
 * @param {PageState} page
 */
function viewRecordTools(page) {
  const review = page.mode === 'review' ? page.review : null;
  const shown =
    importable(page) || (page.mode === 'online' && !!page.online?.state) || (!!review?.record && review.positions.length > 0);
  $('record-tools').hidden = !shown;
  $('import-record').hidden = !importable(page);
  // MFEN has no form for Three's and Six's boards: no button that can only fail there.
  $('copy-mfen').hidden = !!mfenRefusedOnScreen(page);
  if (!shown) $('record-copied').textContent = '';
}

/** @param {Frame} f */
function viewStatus(f) {
  const status = $('status');
  const [text, tone] = statusText(f);
  // Only a changed text is written, so screen readers announce news, not every redraw.
  if (status.textContent !== text) status.textContent = text;
  status.dataset.tone = tone;
}

/** The result box once the game is over. @param {Frame} f */
function viewResult({ t, snap, o, vs, human }) {
  $('result').hidden = !snap?.outcome;
  if (!snap?.outcome) return;
  const out = snap.outcome;
  const personal = personalResult(snap, o, vs, human);
  // The clock's results (online only) say it from this seat's side or a spectator's.
  const timed = clockResult(out, o?.seat ?? null);
  $('result-title').textContent = timed
    ? t(timed.key, { side: timed.side ? t(`color.${timed.side}`) : '' })
    : personal
    ? t(personal)
    : out.kind === 'win'
      ? t('result.win', { side: t(`color.${out.winner}`) })
      : t('result.draw');
  // Said to the person whose side it is (a seat, vs computer), else of the sides.
  $('result-reason').textContent = reasonText({ ...out, reason: out.reason ?? out.kind }, o ? o.seat : vs ? human ?? null : null, t);
  // A rated round of this seat's: the new rating and its change.
  const mine = o?.seat && o.state?.rated ? playerCard(o.state.seats?.[o.seat]) : null;
  const rating = $('result-rating');
  rating.hidden = !mine?.rating || !mine.change;
  rating.textContent = mine?.rating && mine.change ? t('result.rating', { rating: mine.rating, change: mine.change }) : '';
}

/** The move list, numbered by turn pairs (under review, review.js's). @param {Frame} f */
function viewRecord({ page, snap }) {
  const reviewing = page.mode === 'review' && page.review ? reviewPart.now() : null;
  if (reviewing) return reviewing.viewReviewRecord(page);
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
  // A list taller than its box scrolls; the keyboard must be able to reach it to scroll it.
  if (list.scrollHeight > list.clientHeight) list.tabIndex = 0;
  else list.removeAttribute('tabindex');
}

/** Undo and New game (same device, vs computer), the computer's level and side. @param {Frame} f */
function viewLocalControls({ page, snap, vs, human }) {
  const local = page.mode === 'local' || !!vs;
  $('local-controls').hidden = !local;
  $('online-controls').hidden = local || page.mode === 'review';
  $('computer-controls').hidden = !vs;
  if (vs) {
    for (const input of radios('computer-level')) input.checked = input.value === vs.settings.level;
    // Perfect is offered where the whole game is solved: Three Men's Morris, and Six under its
    // usual rules (from the server's tables; without them it plays as Hard). Elsewhere, chosen
    // before, it stays shown and plays as Hard.
    const solved = /^(three(\+|$)|six$)/.test(page.game?.rulesName() ?? '');
    $('computer-level-perfect').hidden = !solved && vs.settings.level !== 'perfect';
    for (const input of radios('computer-side')) input.checked = input.value === human;
  }
  if (local) {
    $button('undo').disabled = vs ? !vs.canUndo() : !snap || snap.actions === 0;
    $('new-game').classList.toggle('primary', !!snap?.outcome);
  }
  // An imported game can be started again from where it was imported; New game is the rule set's start.
  $('restart-import').hidden = !(local && page.game && importedStart(page.game));
}

/**
 * Asking to take back one's last turn, the opponent's request with Allow and Decline, and
 * the word that an offer of this seat's was declined.
 * @param {import('./types.js').Translate} t @param {Partial<NonNullable<Frame['view']>>} v
 */
function viewTakeback(t, v) {
  const ask = $button('offer-takeback');
  ask.hidden = !v.canAskTakeback && !v.takebackAskedByMe;
  ask.disabled = !v.canAskTakeback;
  ask.textContent = v.takebackAskedByMe ? t('online.takebackAsked') : t('online.askTakeback');
  $('takeback-offer').hidden = !v.takebackAskedToMe;
  $('takeback-offer-text').textContent = t('online.takebackAskedToYou', { side: t(`color.${v.opponent ?? 'dark'}`) });
  const declined = $('declined-note');
  declined.hidden = !v.declinedMine;
  declined.textContent = v.declinedMine
    ? t(v.declinedMine === 'draw' ? 'online.drawDeclined' : 'online.takebackDeclined', { side: t(`color.${v.opponent}`) })
    : '';
}

/** The invite link, draw, resign, new round and "Play here". @param {Frame} f */
function viewOnlineControls({ page, t, snap, o, view }) {
  if (!o) {
    $('invite').hidden = true;
    return;
  }
  $('invite').hidden = !(o.seat && !o.gone && (!view || !view.friendJoined));
  $input('invite-link').value = `${location.origin}/r/${o.roomId}`;
  const v = view ?? /** @type {Partial<NonNullable<Frame['view']>>} */ ({});
  const offerDraw = $button('offer-draw');
  offerDraw.hidden = !v.canOfferDraw && !v.drawOfferedByMe;
  offerDraw.disabled = !v.canOfferDraw;
  offerDraw.textContent = v.drawOfferedByMe ? t('online.drawOffered') : t('online.offerDraw');
  $('draw-offer').hidden = !v.drawOfferedToMe;
  $('draw-offer-text').textContent = t('online.drawOfferedToYou', { side: t(`color.${v.opponent ?? 'dark'}`) });
  $('resign').hidden = !v.canResign;
  const newRound = $button('new-round');
  newRound.hidden = !(v.canAskNewRound || v.askedNewRound);
  newRound.disabled = !v.canAskNewRound;
  const note = $('new-round-note');
  note.hidden = !(v.askedNewRound || v.opponentAskedNewRound);
  note.textContent = v.askedNewRound
    ? t('online.newRoundAsked', { side: t(`color.${v.opponent}`) })
    : t('online.newRoundOffered', { side: t(`color.${v.opponent ?? 'dark'}`) });
  viewTakeback(t, v);
  // A finished round can be shared for review, by anyone in the room, once a turn was played;
  // a round of quick pairing offers another search to its players.
  $('share-round').hidden = !o.state?.result || !snap?.actions;
  $('find-opponent').hidden = !(o.state?.result && o.seat && o.paired);
  viewRematch(t, o, v);
  $('take-back').hidden = !o.replaced;
  const watching = !o.seat && !!o.state;
  $('seat-note').hidden = !o.seat && !watching;
  $('seat-note').textContent = o.seat ? t('online.youAre', { side: t(`color.${o.seat}`) }) : watching ? t('online.watchingNote') : '';
  viewRoundScore(t, o);
  // Everyone in the room sees how many watch (a server that does not count sends nothing).
  const viewers = o.state?.spectators ?? 0;
  $('viewers').hidden = viewers === 0;
  $('viewers').textContent = viewers ? t(pluralKey(page.lang, 'online.viewers', viewers), { n: viewers }) : '';
}

/**
 * A finished round of a paired room: "Rematch"; the opponent's offer with Accept and
 * Decline; one's own offer waiting, with Cancel; and, in a status line (heard by screen
 * readers), that the offer was declined or lapsed.
 * @param {import('./types.js').Translate} t @param {OnlineState} o @param {Partial<NonNullable<Frame['view']>>} v
 */
function viewRematch(t, o, v) {
  const offer = $button('offer-rematch');
  offer.hidden = !(v.mayRematch && !v.rematchOfferedByMe && !v.rematchOfferedToMe);
  offer.disabled = !v.canOfferRematch;
  $('rematch-offer').hidden = !v.rematchOfferedToMe;
  $('rematch-offer-text').textContent = t('online.rematchOfferedToYou');
  $('rematch-waiting').hidden = !v.rematchOfferedByMe;
  const note = $('rematch-note');
  const text = v.rematchRoom ? t('online.rematchStarting') : v.watchRematch ? t('online.rematchToWatch') : o.rematchNote === 'declined' ? t('online.rematchDeclined') : o.rematchNote === 'lapsed' ? t('online.rematchLapsed') : '';
  // The status line stays in the page (empty) so that what it comes to say is heard.
  if (note.textContent !== text) note.textContent = text;
  // A spectator follows the players there by a link (the room's address: no key).
  const watch = /** @type {HTMLAnchorElement} */ ($('watch-rematch'));
  $('watch-rematch-box').hidden = !v.watchRematch;
  if (v.watchRematch) watch.href = roomHref(v.watchRematch);
  watch.textContent = t('online.watchRematch');
}

/**
 * From the second round: which round this is and the score of the rounds so far, the
 * person's first ("Round 3 · You 1½ – ½"), a spectator's as Light – Dark.
 * @param {import('./types.js').Translate} t @param {OnlineState} o
 */
function viewRoundScore(t, o) {
  const line = $('round-score');
  const state = o.state;
  line.hidden = !state || state.round < 2;
  if (!state || state.round < 2) return;
  const score = roomScore(state.round, o.rounds, state.result ?? null);
  if (!score.known) line.textContent = t('online.round', { round: state.round });
  else if (o.seat) {
    const theirs = o.seat === 'light' ? 'dark' : 'light';
    line.textContent = t('online.roundScore', { round: state.round, mine: scoreText(score[o.seat]), theirs: scoreText(score[theirs]) });
  } else line.textContent = t('online.roundScoreWatch', { round: state.round, light: scoreText(score.light), dark: scoreText(score.dark) });
}
