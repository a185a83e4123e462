// Owns what the screen-reader live region says (screen-reader play): from two moments of
// the page (its snapshot, and online the room's offers and presence), the news between
// them in words — one announcement per completed turn, held back until the turn's removal
// is made ("Dark: d6 to d5, closes a mill, removes a4"), a mill that owes a removal, whose
// turn it is, the end and why, takebacks, draw offers, takeback requests and rematch offers, the opponent
// leaving and coming back. Pure: no DOM; screen-reader.js speaks the result.

import { moversOf, stateWords, turnWords } from './command.js';

/** @typedef {import('./types.js').Snapshot} Snapshot */
/** @typedef {import('./types.js').Side} Side */
/** @typedef {import('./types.js').Translate} Translate */
/** @typedef {import('./page-state.js').PageState} PageState */

/** @typedef {'empty' | 'online' | 'away'} Presence  a seat: nobody has taken it, its player is connected, or gone */

/**
 * @typedef {object} Hearing  what the announcer compares between redraws
 * @property {string} game  which game: mode, room and round (news only within one game)
 * @property {boolean} review  stepping through a finished game, not playing it
 * @property {Side | null} seat  the person's side (online seat, vs computer), null on one device or watching
 * @property {Snapshot} snap
 * @property {{ light: Presence, dark: Presence } | null} online  online: each seat's presence
 * @property {Side | null} draw  online: the side offering a draw
 * @property {Side | null} takeback  online: the side asking for a takeback
 * @property {Side | null} [rematch]  online: the side offering a rematch
 */

/**
 * The moment the page shows, or null when no game is on screen.
 * @param {PageState} page @returns {Hearing | null}
 */
export function hearingOf(page) {
  const snap = page.snapshot;
  if (!page.mode || !snap || !snap.position) return null;
  /** @type {Hearing} */
  const h = { game: page.mode, review: page.mode === 'review', seat: null, snap, online: null, draw: null, takeback: null };
  if (page.mode === 'online') {
    const o = page.online;
    if (!o?.state || !o.fresh) return null;
    h.game = `online:${o.roomId}:${o.state.round}`;
    h.seat = o.seat;
    const presence = (/** @type {import('./types.js').SeatPresence} */ seat) => (!seat.taken ? 'empty' : seat.online ? 'online' : 'away');
    h.online = { light: presence(o.state.seats.light), dark: presence(o.state.seats.dark) };
    h.draw = o.state.offers?.draw ?? null;
    h.takeback = o.state.offers?.takeback ?? null;
    h.rematch = o.state.offers?.rematch ?? null;
  } else if (page.mode === 'computer') {
    h.seat = page.computer?.settings.human ?? null;
  } else if (page.mode === 'review' && page.review) {
    const s = page.review.source;
    h.game = `review:${s.kind === 'round' ? `${s.roomId}:${s.round}` : s.from}`;
  }
  return h;
}

/**
 * `now`, with what only a sequence of moments shows: a seat taken whose player has not yet
 * connected is still empty (the server takes the seat before the socket is up), so the
 * player's arrival is heard as joining, not as coming back.
 * @param {Hearing | null} before @param {Hearing | null} now @returns {Hearing | null}
 */
export function settle(before, now) {
  if (!now?.online || !before?.online || before.game !== now.game) return now;
  const keep = (/** @type {Side} */ s) => (before.online?.[s] === 'empty' && now.online?.[s] === 'away' ? 'empty' : now.online?.[s] ?? 'empty');
  return { ...now, online: { light: keep('light'), dark: keep('dark') } };
}

/** @param {string[]} a @param {string[]} b  whether `b` starts with all of `a` */
const extends_ = (a, b) => a.length <= b.length && a.every((turn, i) => b[i] === turn);

/**
 * What to say between two moments, in order. A first look at a game says where it stands;
 * then each completed turn once, with its mover, the removal included.
 * @param {Hearing | null} before @param {Hearing | null} now @param {Translate} t
 * @returns {string[]}
 */
export function announcementsOf(before, now, t) {
  if (!now) return [];
  const side = (/** @type {Side} */ s) => t(`color.${s}`);
  const b = now.snap;
  if (!before || before.game !== now.game) {
    const last = b.record.length ? [t('say.turn', { side: side(moversOf(b).at(-1) ?? b.turn), words: turnWords(/** @type {string} */ (b.record.at(-1)), t) })] : [];
    return [[...(now.review ? last : []), stateWords(b, now.seat, t)].join('. ')];
  }
  const a = before.snap;
  /** @type {string[]} */
  const said = [];
  if (b.actions !== a.actions || b.position !== a.position) {
    if (b.actions > a.actions && extends_(a.record, b.record)) {
      const movers = moversOf(b);
      for (let i = a.record.length; i < b.record.length; i++) {
        said.push(t('say.turn', { side: side(movers[i]), words: turnWords(b.record[i], t) }));
      }
    } else if (b.actions === 0) {
      said.push(t(now.review ? 'say.start' : 'say.newGame'));
    } else if (b.actions < a.actions && !now.review) {
      said.push(t('say.takenBack'));
    } else if (b.record.length) {
      // A jump (review's first/last, an import): say where the game is now.
      said.push(t('say.after', { side: side(moversOf(b).at(-1) ?? b.turn), words: turnWords(/** @type {string} */ (b.record.at(-1)), t) }));
    }
    // The mill that owes a removal is news once, when it is closed, to whoever makes the
    // removal (the person's own mill, both sides on one device, or under review); another
    // side's (the computer's, an online opponent's, a watched game's) is heard with its
    // turn, whole, once the removal is made. The turn itself is told with its removal.
    const removesHere = now.review || (now.seat ? b.turn === now.seat : !now.online);
    const millNow = removesHere && b.pendingRemovals > 0 && !(a.pendingRemovals > 0 && a.record.length === b.record.length && b.actions > a.actions);
    if (b.outcome ? !a.outcome || b.actions !== a.actions : b.pendingRemovals === 0 || millNow) said.push(stateWords(b, now.seat, t));
  } else if (b.outcome && !a.outcome) {
    // An end with no action: a resignation, an agreed draw.
    said.push(stateWords(b, now.seat, t));
  }
  const watched = (/** @type {Side} */ s) => s !== now.seat;
  if (now.draw && now.draw !== before.draw && watched(now.draw)) said.push(t('say.drawOffer', { side: side(now.draw) }));
  if (now.takeback && now.takeback !== before.takeback && watched(now.takeback)) said.push(t('say.takebackAsk', { side: side(now.takeback) }));
  // A rematch is between the players: offered to the person, it is news to them.
  if (now.rematch && now.rematch !== before.rematch && now.seat && watched(now.rematch)) said.push(t('say.rematchOffer'));
  if (now.online && before.online) {
    for (const s of /** @type {const} */ (['light', 'dark'])) {
      if (!watched(s) || now.online[s] === before.online[s]) continue;
      const key = now.online[s] === 'away' ? 'say.left' : before.online[s] === 'empty' ? 'say.joined' : now.online[s] === 'online' ? 'say.back' : null;
      if (key) said.push(t(key, { side: side(s) }));
    }
  }
  return said.length ? [said.join('. ')] : [];
}
