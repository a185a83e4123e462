// Pure parts of the arenas (docs/PROTOCOL.md "Arenas"): the list on the start screen,
// one arena's countdown, standings sheet, games to watch, buttons and podium, the news a
// screen reader hears when the standings change, and the body of a new arena. No DOM,
// no fetch (unit-tested in tests/unit/arena.test.mjs).

/** @typedef {import('./types.js').Translate} Translate */

/**
 * @typedef {{ initial: number, increment: number }} ArenaClock
 * @typedef {'win' | 'draw' | 'loss' | null} ArenaResult
 * @typedef {{ room: string, opponent: string | null, result: ArenaResult, points: number }} ArenaGame
 * @typedef {'joined' | 'paused' | 'withdrawn'} ArenaState
 * @typedef {{ rank: number, name: string, score: number, fire: boolean, performance: number | null, state: ArenaState, playing: string | null, games: ArenaGame[] }} StandingRow
 * @typedef {'created' | 'started' | 'finished'} ArenaStatus
 * @typedef {object} Arena
 * @property {string} id
 * @property {string} name
 * @property {string} variant
 * @property {ArenaClock} clock
 * @property {boolean} rated
 * @property {ArenaStatus} status
 * @property {number} starts  Unix ms
 * @property {number} ends  Unix ms
 * @property {number} players
 * @property {StandingRow[]} standings  one page of them (empty in the list)
 * @property {number} page  which page `standings` is, from 1
 * @property {number} pages  how many pages there are
 * @property {number} ranked  rows on all pages
 * @property {StandingRow | null} own  the signed-in player's row, wherever it stands
 * @property {{ played: number, playing: number }} games
 */

/** The live clocks an arena can be created with (a subset of clock.js's presets: no days). */
export const ARENA_CLOCKS = Object.freeze([
  { id: '1+0', clock: { initial: 60, increment: 0 } },
  { id: '3+2', clock: { initial: 180, increment: 2 } },
  { id: '5+3', clock: { initial: 300, increment: 3 } },
  { id: '10+5', clock: { initial: 600, increment: 5 } },
]);
/** The rule sets an arena can be created with, in the chooser's order. */
export const ARENA_RULES = Object.freeze(['nine', 'six', 'three', 'twelve']);
/** Rows in a page of the standings (arena/mod.rs `STANDINGS_PAGE`). */
export const STANDINGS_PAGE = 50;
/** The server's bounds (arena/api.rs). */
export const MAX_MINUTES = 360;
export const MAX_NAME = 60;
export const MAX_AHEAD_MS = 7 * 86_400_000;

const STATUSES = ['created', 'started', 'finished'];
const STATES = ['joined', 'paused', 'withdrawn'];
const RESULTS = ['win', 'draw', 'loss'];

/** The arena id in a path like /arena/k7q2mx9rd4tf, or null. @param {string} pathname */
export function arenaFromPath(pathname) {
  const m = /^\/arena\/([a-z0-9]{12})\/?$/.exec(pathname);
  return m ? m[1] : null;
}

/** An arena's page address. @param {string} id */
export const arenaHref = (id) => `/arena/${encodeURIComponent(id)}`;

/** A room's page address. @param {string} room */
export const roomHref = (room) => `/r/${encodeURIComponent(room)}`;

/** @param {unknown} v */
const whole = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * A row of the standings as the server sends it, checked; null when it is not one.
 * @param {any} r @param {number} rank  the rank when the row has none
 * @returns {StandingRow | null}
 */
export function parseRow(r, rank) {
  if (!r || typeof r.name !== 'string') return null;
  return {
    rank: whole(r.rank) || rank,
    name: r.name,
    score: whole(r.score),
    fire: r.fire === true,
    performance: typeof r.performance === 'number' ? r.performance : null,
    state: STATES.includes(r.state) ? r.state : 'joined',
    playing: typeof r.playing === 'string' ? r.playing : null,
    games: (Array.isArray(r.games) ? r.games : [])
      .filter((/** @type {any} */ g) => g && typeof g.room === 'string')
      .map((/** @type {any} */ g) => ({
        room: g.room,
        opponent: typeof g.opponent === 'string' ? g.opponent : null,
        result: RESULTS.includes(g.result) ? g.result : null,
        points: whole(g.points),
      })),
  };
}

/**
 * An arena as the server sends it (`GET /api/arenas/{id}`, a list's entry, a `standings`
 * message), checked and with its times in Unix ms; null when it is not shaped like one.
 * @param {any} json
 * @returns {Arena | null}
 */
export function parseArena(json) {
  if (!json || typeof json.id !== 'string' || typeof json.name !== 'string') return null;
  const starts = Date.parse(json.starts);
  const ends = Date.parse(json.ends);
  if (!Number.isFinite(starts) || !Number.isFinite(ends)) return null;
  /** @type {StandingRow[]} */
  const standings = [];
  for (const r of Array.isArray(json.standings) ? json.standings : []) {
    const row = parseRow(r, standings.length + 1);
    if (row) standings.push(row);
  }
  return {
    id: json.id,
    name: json.name,
    variant: typeof json.variant === 'string' ? json.variant : 'nine',
    clock: { initial: whole(json.clock?.initial), increment: whole(json.clock?.increment) },
    rated: json.rated === true,
    status: STATUSES.includes(json.status) ? json.status : 'created',
    starts,
    ends,
    players: whole(json.players),
    standings,
    page: whole(json.page) || 1,
    pages: whole(json.pages) || 1,
    ranked: whole(json.ranked) || standings.length,
    own: parseRow(json.own, 0),
    games: { played: whole(json.games?.played), playing: whole(json.games?.playing) },
  };
}

/**
 * The start screen's list (`GET /api/arenas`): running first (ending soonest first),
 * then starting soon, then recently finished (latest first).
 * @param {any} json
 * @returns {{ running: Arena[], upcoming: Arena[], finished: Arena[] }}
 */
export function arenaGroups(json) {
  const all = (Array.isArray(json?.arenas) ? json.arenas : []).map(parseArena).filter(/** @returns {a is Arena} */ (a) => !!a);
  return {
    running: all.filter((a) => a.status === 'started').sort((a, b) => a.ends - b.ends),
    upcoming: all.filter((a) => a.status === 'created').sort((a, b) => a.starts - b.starts),
    finished: all.filter((a) => a.status === 'finished').sort((a, b) => b.ends - a.ends),
  };
}

/**
 * Where an arena stands at `now` (the page's clock, corrected by `offset`, the server's
 * time minus the page's): before the start, the time to it; while it runs, the time to the
 * end; then finished. The server's status is never gone back on (a page clock behind).
 * @param {Arena} arena @param {number} now @param {number} [offset]
 * @returns {{ status: ArenaStatus, left: number }}
 */
export function phaseAt(arena, now, offset = 0) {
  const at = now + offset;
  const order = STATUSES.indexOf(arena.status);
  if (order < 1 && at < arena.starts) return { status: 'created', left: arena.starts - at };
  if (order < 2 && at < arena.ends) return { status: 'started', left: arena.ends - at };
  return { status: 'finished', left: 0 };
}

/** A countdown's text: `1:02:03`, `4:05`, `0:09` (whole seconds, rounded up). @param {number} ms */
export function countdownText(ms) {
  const secs = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(secs / 3600);
  const m = Math.floor(secs / 60) % 60;
  const s = String(secs % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** An arena's clock as `3+2` (minutes, seconds added per turn). @param {ArenaClock} clock */
export function clockName(clock) {
  const minutes = clock.initial % 60 === 0 ? String(clock.initial / 60) : (clock.initial / 60).toFixed(1).replace(/\.0$/, '');
  return `${minutes}+${clock.increment}`;
}

/**
 * @typedef {'double' | 'win' | 'draw' | 'loss' | 'playing' | 'void'} SheetKind
 *   a win scored double (on fire), a win, a draw, a loss, a game in play, and one that
 *   scored nothing without a loss (aborted, or a draw before ten turns each)
 * @typedef {{ text: string, kind: SheetKind, room: string, opponent: string | null }} SheetEntry
 */

/**
 * A player's games as lichess's arena sheet shows them: the points of each, oldest first
 * (a double win `4`, a win `2`, a draw `1` or `2` on fire, a loss `0`, `*` in play, `–`
 * for a game that scored nothing and lost nothing).
 * @param {StandingRow} row
 * @returns {SheetEntry[]}
 */
export function sheet(row) {
  return row.games.map((g) => {
    /** @type {SheetKind} */
    let kind;
    let text = String(g.points);
    if (g.result === null) {
      kind = g.room === row.playing ? 'playing' : 'void';
      text = kind === 'playing' ? '*' : '–';
    } else if (g.result === 'win') kind = g.points > 2 ? 'double' : 'win';
    else if (g.result === 'loss') kind = 'loss';
    else kind = g.points === 0 ? 'void' : 'draw';
    return { text, kind, room: g.room, opponent: g.opponent };
  });
}

/**
 * The games to watch: the games in play of the leaders, best standing first, each once.
 * @param {StandingRow[]} standings @param {number} [limit]
 * @returns {{ room: string, players: [string, string | null], ranks: [number, number | null] }[]}
 */
export function topGames(standings, limit = 3) {
  /** @type {{ room: string, players: [string, string | null], ranks: [number, number | null] }[]} */
  const out = [];
  const seen = new Set();
  for (const row of standings) {
    if (!row.playing || seen.has(row.playing)) continue;
    seen.add(row.playing);
    const opponent = row.games.find((g) => g.room === row.playing)?.opponent ?? null;
    const other = opponent === null ? undefined : standings.find((r) => r.name === opponent);
    out.push({ room: row.playing, players: [row.name, opponent], ranks: [row.rank, other?.rank ?? null] });
    if (out.length >= limit) break;
  }
  return out;
}

/** The row of the player named `me` (names compare without case, as the server's do). @param {StandingRow[]} standings @param {string | null} me */
export function ownRow(standings, me) {
  if (!me) return null;
  const key = me.toLowerCase();
  return standings.find((r) => r.name.toLowerCase() === key) ?? null;
}

/**
 * The row of the player named `me`: the arena's `own` row (which the server sends
 * wherever it stands), else the one on the page in view.
 * @param {Arena} arena @param {string | null} me
 */
export function mineIn(arena, me) {
  if (!me) return null;
  if (arena.own && arena.own.name.toLowerCase() === me.toLowerCase()) return arena.own;
  return ownRow(arena.standings, me);
}

/**
 * The rows the standings table shows: the page in view, then the player's own row when
 * it stands on another page (`apart`: drawn after a gap).
 * @param {Arena} arena @param {string | null} me
 * @returns {{ rows: StandingRow[], apart: StandingRow | null }}
 */
export function shownRows(arena, me) {
  const mine = mineIn(arena, me);
  const onPage = mine !== null && arena.standings.some((r) => r.name === mine.name);
  return { rows: arena.standings, apart: mine && !onPage ? mine : null };
}


/**
 * Which of the arena page's buttons are shown: join (or rejoin after withdrawing),
 * resume after a pause, pause, withdraw; a sign-in link for a visitor; none once finished.
 * @param {Arena} arena @param {ArenaStatus} status @param {string | null} me  the signed-in name, null for a visitor
 * @returns {{ join: boolean, rejoin: boolean, resume: boolean, pause: boolean, withdraw: boolean, signIn: boolean }}
 */
export function controls(arena, status, me) {
  const none = { join: false, rejoin: false, resume: false, pause: false, withdraw: false, signIn: false };
  if (status === 'finished') return none;
  if (!me) return { ...none, signIn: true };
  const row = mineIn(arena, me);
  if (!row) return { ...none, join: true };
  if (row.state === 'withdrawn') return { ...none, rejoin: true };
  if (row.state === 'paused') return { ...none, resume: true, withdraw: true };
  return { ...none, pause: true, withdraw: true };
}

/** The first three of a finished arena, by rank (fewer when fewer played; none but on page 1). @param {Arena} arena @param {ArenaStatus} status */
export function podium(arena, status) {
  if (status !== 'finished' || arena.page !== 1) return [];
  return arena.standings.filter((r) => r.games.some((g) => g.result !== null)).slice(0, 3);
}

/**
 * What a screen reader hears when the standings change from `before` to `after`: the
 * start and the end (with the winner), the player's own rank and score, and a new leader.
 * @param {Arena | null} before @param {Arena} after @param {string | null} me @param {Translate} t
 * @returns {string[]}
 */
export function arenaNews(before, after, me, t) {
  if (!before || before.id !== after.id) return [];
  const out = [];
  if (before.status !== after.status) {
    if (after.status === 'started') out.push(t('arena.news.started'));
    if (after.status === 'finished') {
      const first = after.page === 1 ? after.standings[0] : undefined;
      out.push(first ? t('arena.news.finishedWinner', { name: first.name, score: first.score }) : t('arena.news.finished'));
      return out;
    }
  }
  const mine = mineIn(after, me);
  const was = mineIn(before, me);
  if (mine && (!was || was.rank !== mine.rank || was.score !== mine.score)) {
    out.push(t('arena.news.you', { rank: mine.rank, score: mine.score }));
  }
  // The leader is known only on page 1.
  const leader = after.page === 1 ? after.standings[0] : undefined;
  const oldLeader = before.page === 1 ? before.standings[0] : undefined;
  if (leader && leader.score > 0 && leader.name !== oldLeader?.name && leader.name !== mine?.name) {
    out.push(t('arena.news.leader', { name: leader.name, score: leader.score }));
  }
  return out;
}

/**
 * A local date and time (`2026-12-24T18:30`, as an `<input type="datetime-local">` gives
 * it) as RFC 3339 in UTC, or null.
 * @param {string} local
 */
export function localToRfc3339(local) {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local)) return null;
  const ms = new Date(local).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/**
 * The value a `datetime-local` field shows for `ms`, in the page's time zone, to the
 * minute (`2026-12-24T18:30`): the create form's default start, the next full hour.
 * @param {number} ms
 */
export function localInput(ms) {
  const d = new Date(ms);
  const two = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/**
 * The body of `POST /api/arenas` from the create form's fields, or the i18n key of what
 * is wrong (said beside the form; nothing is sent).
 * @param {{ name: string, rules: string, clock: string, minutes: string, start: 'now' | 'later', at: string, rated: boolean }} form
 * @param {number} now  Unix ms
 * @returns {{ body: { name: string, variant: string, clock: ArenaClock, minutes: number, starts: string | null, rated: boolean } } | { error: string }}
 */
export function createBody(form, now) {
  const name = form.name.trim();
  if (!name || [...name].length > MAX_NAME) return { error: 'arena.create.badName' };
  const clock = ARENA_CLOCKS.find((c) => c.id === form.clock)?.clock;
  if (!clock) return { error: 'arena.create.badClock' };
  if (!ARENA_RULES.includes(form.rules)) return { error: 'arena.create.badRules' };
  const minutes = Number(form.minutes);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_MINUTES) return { error: 'arena.create.badMinutes' };
  let starts = null;
  if (form.start === 'later') {
    starts = localToRfc3339(form.at);
    const at = starts ? Date.parse(starts) : NaN;
    if (!starts || at < now - 60_000 || at > now + MAX_AHEAD_MS) return { error: 'arena.create.badStart' };
  }
  return { body: { name, variant: form.rules, clock: { ...clock }, minutes, starts, rated: form.rated } };
}

/**
 * A time of day in the page's language (`18:30`), with the day when it is not today
 * (`Tue 18:30`).
 * @param {number} ms @param {string} lang @param {number} now
 */
export function whenText(ms, lang, now) {
  const d = new Date(ms);
  const sameDay = new Date(now).toDateString() === d.toDateString();
  const opts = /** @type {Intl.DateTimeFormatOptions} */ (sameDay ? { hour: '2-digit', minute: '2-digit' } : { weekday: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  return new Intl.DateTimeFormat(lang, opts).format(d);
}
