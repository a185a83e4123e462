// Owns screen-reader play on the page: the remembered switch (`screen-reader` in storage),
// the polite live region (#announce) fed with announce.js's news after every redraw, and
// the Command field (#command) that plays a turn typed in notation or answers a query
// (command.js). A typed turn is first played on a copy of the game in the rules
// (mill-core in WebAssembly), so a turn the rules refuse changes nothing; only then is it
// played for real, through the same path as the board's clicks.

import { announcementsOf, hearingOf, settle } from './announce.js';
import { clocksWords } from './clock-view.js';
import { answerQuery, parseCommand, refusalWords } from './command.js';
import { $, $input } from './dom.js';
import { recordToWrite } from './game-record.js';
import { localGame } from './rules.js';
import { SCREEN_READER_KEY } from './storage.js';

/** @typedef {import('./page-state.js').App} App */
/** @typedef {import('./page-state.js').PageState} PageState */
/** @typedef {import('./announce.js').Hearing} Hearing */

/** The live region keeps this many recent announcements (older ones are dropped). */
const KEEP = 20;

/**
 * Binds the switch, the live region and the Command field; once, at start-up.
 * @param {App} app
 * @param {object} hooks
 * @param {(action: string) => unknown} hooks.act  plays one action as the board would
 * @param {() => boolean} hooks.canAct  whether the board takes an action now
 * @param {(muted: boolean) => void} hooks.mute  turns the page's sounds off or on
 */
export function bindScreenReader(app, { act, canAct, mute }) {
  const toggle = $('sr-mode');
  const form = $('command-form');
  const input = $input('command');
  const region = $('announce');
  let on = app.storage.get(SCREEN_READER_KEY) === 'on';
  /** @type {Hearing | null} */
  let last = null;
  /** @type {{ game: string, actions: string[], after: number, until: number } | null} the rest of a typed turn, online: sent when the game has `after` actions; the turn is whole at `until` */
  let queue = null;
  /** A typed turn is being played: its redraws wait for its end. */
  let busy = false;

  /** How many announcements were made (tests wait on `data-count`). */
  let count = 0;

  /** @param {string} text */
  function say(text) {
    if (!text) return;
    const p = document.createElement('p');
    p.textContent = text;
    region.append(p);
    region.dataset.count = String(++count);
    while (region.childElementCount > KEEP) region.firstElementChild?.remove();
  }

  function show() {
    toggle.setAttribute('aria-pressed', String(on));
    form.hidden = !on;
    document.body.dataset.screenReader = on ? 'on' : 'off';
    // The live region speaks for the status line in this mode; both would say the turn twice.
    $('status').setAttribute('aria-live', on ? 'off' : 'polite');
  }

  toggle.addEventListener('click', () => {
    on = !on;
    app.storage.set(SCREEN_READER_KEY, on ? 'on' : 'off');
    // Sounds talk over speech: off when the mode is turned on (the sound switch can bring them back).
    if (on) mute(true);
    last = null;
    show();
    if (on) update(app.page);
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value;
    run(text).then((ok) => {
      if (ok) input.value = '';
      else input.select();
    });
  });

  /** Runs a typed line; resolves to whether it was taken. @param {string} text */
  async function run(text) {
    const { page } = app;
    const command = parseCommand(text);
    if (command.kind === 'error') {
      say(page.t(command.key, command.params));
      return false;
    }
    if (command.kind === 'query') {
      const seat = hearingOf(page)?.seat ?? null;
      say(answerQuery(command.query, { snap: page.snapshot, topology: page.topology, seat, clocks: clocksWords(page) }, page.t));
      return true;
    }
    if (!page.mode || !page.snapshot) return say(page.t('cmd.noGame')), false;
    if (page.mode === 'review') return say(page.t('cmd.review')), false;
    if (!canAct()) {
      const seat = hearingOf(page)?.seat;
      const snap = page.snapshot;
      say(seat && snap.turn !== seat && !snap.outcome ? page.t('cmd.notYourTurn', { side: page.t(`color.${snap.turn}`) }) : page.t(snap.outcome ? 'say.over' : 'cmd.wait'));
      return false;
    }
    const copy = await copyOfGame(app);
    if (!copy) return say(page.t('cmd.wait')), false;
    for (const action of command.actions) {
      const reply = copy.play(action);
      if (!reply.ok && reply.error) return say(refusalWords(reply.error, action, page.t)), false;
    }
    const [first, ...rest] = command.actions;
    if (page.mode === 'online') {
      const played = page.snapshot.actions;
      queue = rest.length ? { game: hearingOf(page)?.game ?? '', actions: rest, after: played + 1, until: played + command.actions.length } : null;
      act(first);
    } else {
      // One turn, one announcement: the redraws between its actions are not news.
      busy = true;
      try {
        for (const action of command.actions.slice(0, -1)) await act(action);
        // The last action's redraw happens before it resolves; vs computer it resolves
        // only after the computer's reply, which must be heard after this turn.
        const done = act(/** @type {string} */ (command.actions.at(-1)));
        busy = false;
        update(app.page);
        await done;
      } finally {
        busy = false;
      }
    }
    return true;
  }

  /** After a redraw: say what changed, and send the next action of a typed online turn. @param {PageState} page */
  function update(page) {
    if (busy) return;
    const now = settle(last, hearingOf(page));
    // Online, a typed turn is sent one action at a time as the server takes each; until
    // its last is taken, its first is not news yet (another game or a step back ends it).
    if (queue && (!now || now.game !== queue.game || now.snap.actions < queue.after - 1 || now.snap.outcome)) queue = null;
    if (queue && now && now.snap.actions < queue.until) {
      if (queue.actions.length && now.snap.actions >= queue.after && canAct()) {
        queue.after += 1;
        act(/** @type {string} */ (queue.actions.shift()));
      }
      return;
    }
    queue = null;
    if (on) for (const text of announcementsOf(last, now, page.t)) say(text);
    last = now;
  }

  show();
  return {
    update,
    /** The person's own clock went under ten seconds (clock-view.js): said once, in this mode. */
    lowTime() {
      if (on) say(app.page.t('clock.lowSay'));
    },
    get on() {
      return on;
    },
  };
}

/**
 * A copy of the game on screen in the rules, to try a typed turn on first.
 * @param {App} app @returns {Promise<import('./rules.js').LocalGame | null>}
 */
async function copyOfGame(app) {
  const { page } = app;
  const mod = await app.rules();
  if (!mod) return null;
  const copy = localGame(mod);
  if ((page.mode === 'local' || page.mode === 'computer') && page.game) {
    return copy.importRecord(page.game.exportRecord()).ok ? copy : null;
  }
  const startOf = (/** @type {string} */ rules) => (copy.startRules(rules).ok ? copy.snapshot().position : '');
  const record = recordToWrite(page, startOf);
  if (!record) return null;
  return copy.importRecord(JSON.stringify({ start: record.start, actions: record.actions })).ok ? copy : null;
}
