// Owns telling the person that something happened while they looked away: the tab title
// when it is their turn or the game ended in a background tab, a short sound for their
// turn and for a mill (WebAudio, no sound files; started on the person's first gesture, as
// browsers require, and the title says a turn whose sound could not play yet), a buzz on
// phones that vibrate, and the remembered mute switch. `newsOf` (what changed between two redraws) is pure and
// unit-tested; the notifier around it touches the document, the audio and the vibrator.

/** @typedef {import('./page-state.js').PageState} PageState */

export const SOUND_KEY = 'sound';

/**
 * @typedef {object} Moment  what the notifier compares between redraws
 * @property {string} game  which game: mode, room and round (news only within one game)
 * @property {number} actions  actions played
 * @property {boolean} mine  it is the person's turn (online seat, or vs computer) and the game is on
 * @property {boolean} mill  a mill was just closed: its removal is owed
 * @property {boolean} over  the game has ended
 */

/**
 * The moment the page shows, or null when no game is on screen.
 * @param {PageState} page @returns {Moment | null}
 */
export function momentOf(page) {
  const snap = page.snapshot;
  if (!page.mode || !snap || !snap.position) return null;
  let mine = false;
  /** @type {string} */
  let game = page.mode;
  if (page.mode === 'online') {
    const o = page.online;
    if (!o?.state || !o.fresh) return null;
    mine = !!o.seat && snap.turn === o.seat;
    game = `online:${o.roomId}:${o.state.round}`;
  } else if (page.mode === 'computer') {
    mine = snap.turn === page.computer?.settings.human;
  }
  return { game, actions: snap.actions, mine: mine && !snap.outcome, mill: snap.pendingRemovals > 0, over: !!snap.outcome };
}

/**
 * What to tell between two moments: nothing on the first look at a game (a reload is no
 * news), nor when only the redraw changed.
 * @param {Moment | null} before @param {Moment | null} now
 * @returns {{ yourTurn: boolean, mill: boolean, over: boolean }}
 */
export function newsOf(before, now) {
  if (!before || !now || before.game !== now.game) return { yourTurn: false, mill: false, over: false };
  // A game can end with no action (resignation, an agreed draw).
  const played = now.actions !== before.actions;
  return {
    yourTurn: played && now.mine && !before.mine,
    mill: played && now.mill && !before.mill,
    over: now.over && !before.over,
  };
}

/**
 * The notifier. `update(page)` after every redraw; `muted` is the switch.
 * @param {object} deps
 * @param {import('./storage.js').SafeStorage} deps.storage  where the switch is remembered
 * @param {Document} [deps.doc]
 * @param {Navigator} [deps.nav]
 * @param {typeof AudioContext} [deps.Audio]
 */
export function createNotifier({ storage, doc = document, nav = navigator, Audio = globalThis.AudioContext }) {
  let muted = storage.get(SOUND_KEY) === 'off';
  /** @type {Moment | null} */
  let last = null;
  /** @type {'yourTurn' | 'gameOver' | null} what the tab title says while the tab is hidden */
  let alert = null;
  /** @type {AudioContext | null} */
  let audio = null;
  /** @type {PageState | null} */
  let shown = null;
  /** Your turn came and its sound could not play (no gesture yet): the title says it, tab visible or not. */
  let unheard = false;

  const hidden = () => doc.visibilityState === 'hidden';

  function title() {
    if (!shown) return;
    const { t } = shown;
    const text = alert && (hidden() || unheard) ? `● ${t(`notify.${alert}`)} · ${t('app.title')}` : t('app.title');
    if (doc.title !== text) doc.title = text;
  }

  /**
   * Starts (or resumes) the audio inside a person's gesture: before any, browsers keep it
   * suspended, and the first turn's sound would be lost. The gesture also answers an
   * unheard turn's title.
   */
  function onGesture() {
    if (Audio && !muted) {
      try {
        audio ??= new Audio();
        if (audio.state === 'suspended') audio.resume().catch(() => {});
      } catch {
        // No audio here: the title and the board still say it.
      }
    }
    if (unheard) {
      unheard = false;
      if (!hidden()) alert = null;
      title();
    }
  }
  doc.addEventListener('pointerdown', onGesture, true);
  doc.addEventListener('keydown', onGesture, true);

  /**
   * Two short notes up for "your turn", a low pair for a mill, one high note when the
   * person's clock goes under ten seconds; false when they cannot sound now (muted, no
   * audio, or not yet allowed: no gesture so far).
   * @param {'turn' | 'mill' | 'low'} kind @returns {boolean}
   */
  function tone(kind) {
    if (muted || !Audio) return false;
    // Created before any gesture, the browser refuses it (and says so in the console).
    if (!audio && nav.userActivation?.hasBeenActive === false) return false;
    try {
      audio ??= new Audio();
      if (audio.state === 'suspended') audio.resume().catch(() => {});
      // Notes scheduled on a suspended context would sound late, at the next gesture.
      if (audio.state !== 'running') return false;
      const notes = kind === 'turn' ? [660, 880] : kind === 'mill' ? [392, 523] : [988];
      notes.forEach((freq, i) => {
        const start = audio.currentTime + i * 0.09;
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = kind === 'turn' ? 'sine' : 'triangle';
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, start);
        gain.gain.exponentialRampToValueAtTime(0.2, start + 0.015);
        gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.16);
        osc.connect(gain).connect(audio.destination);
        osc.start(start);
        osc.stop(start + 0.18);
      });
      return true;
    } catch {
      // No audio here (or not allowed yet): the title and the board still say it.
      return false;
    }
  }

  doc.addEventListener('visibilitychange', () => {
    if (!hidden()) alert = null;
    title();
  });

  return {
    get muted() {
      return muted;
    },
    /** @param {boolean} value */
    setMuted(value) {
      muted = value;
      storage.set(SOUND_KEY, value ? 'off' : 'on');
    },
    /** The person's own clock went under ten seconds (clock-view.js): one short note. */
    lowTime() {
      tone('low');
    },
    /** After a redraw: tells what changed since the last one. @param {PageState} page */
    update(page) {
      shown = page;
      const now = momentOf(page);
      const news = newsOf(last, now);
      last = now;
      if (!now) alert = null;
      if (hidden() && news.over) alert = 'gameOver';
      else if (hidden() && news.yourTurn) alert = 'yourTurn';
      else if (alert === 'yourTurn' && !now?.mine) alert = null;
      if (!now?.mine) unheard = false;
      const heard = news.mill ? tone('mill') : news.yourTurn && tone('turn');
      // A turn whose sound could not play is told by the title instead, even in view.
      if (news.yourTurn && !heard && !muted) {
        alert = 'yourTurn';
        unheard = true;
      }
      // Before the person has touched the page the browser refuses (and logs an error).
      if (news.yourTurn && !muted && nav.userActivation?.hasBeenActive !== false) nav.vibrate?.(120);
      title();
    },
  };
}
