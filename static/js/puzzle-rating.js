// Owns the person's puzzle rating: Glicko-2 (Glickman, "Example of the Glicko-2 system",
// 2012), as lichess rates puzzles. A solved puzzle is a win against the puzzle's rating,
// a missed one a loss. Pure: the page keeps the rating in localStorage.

/** The Glicko-2 scale factor between ratings and the internal scale. */
const SCALE = 173.7178;
/** The system constant: how fast the volatility may change. */
export const TAU = 0.5;
/** A newcomer's rating. Its deviation, 250 rather than Glickman's 350, keeps the first
 * puzzles from moving the rating by several hundred points (a first miss of an easy
 * puzzle would take 1500 to under 900). */
export const START = Object.freeze({ rating: 1500, rd: 250, vol: 0.06 });
/** A puzzle's rating deviation: its rating is taken as fairly sure. */
export const PUZZLE_RD = 80;
/** The deviation never falls below this (so a rating keeps moving) nor rises above START's. */
export const MIN_RD = 45;

/**
 * @typedef {{ rating: number, rd: number, vol: number }} Rating
 *   rating, rating deviation and volatility
 * @typedef {{ rating: number, rd: number, score: number }} Game
 *   an opponent's rating and deviation, and the result: 1 win, 0 loss (0.5 a draw)
 */

const g = (phi) => 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));

/**
 * The rating after a rating period with these games (Glicko-2's steps 2 to 8).
 * @param {Rating} player @param {Game[]} games @param {number} [tau] @returns {Rating}
 */
export function rate(player, games, tau = TAU) {
  const mu = (player.rating - 1500) / SCALE;
  const phi = player.rd / SCALE;
  if (games.length === 0) {
    const grown = Math.sqrt(phi * phi + player.vol * player.vol);
    return { ...player, rd: Math.min(grown * SCALE, START.rd) };
  }
  let vInv = 0;
  let sum = 0;
  for (const game of games) {
    const muJ = (game.rating - 1500) / SCALE;
    const gJ = g(game.rd / SCALE);
    const e = 1 / (1 + Math.exp(-gJ * (mu - muJ)));
    vInv += gJ * gJ * e * (1 - e);
    sum += gJ * (game.score - e);
  }
  const v = 1 / vInv;
  const delta = v * sum;
  // The new volatility: the root of f by the Illinois algorithm.
  const a = Math.log(player.vol * player.vol);
  const f = (x) => {
    const ex = Math.exp(x);
    const d = phi * phi + v + ex;
    return (ex * (delta * delta - phi * phi - v - ex)) / (2 * d * d) - (x - a) / (tau * tau);
  };
  let A = a;
  let B;
  if (delta * delta > phi * phi + v) {
    B = Math.log(delta * delta - phi * phi - v);
  } else {
    let k = 1;
    while (f(a - k * tau) < 0) k += 1;
    B = a - k * tau;
  }
  let fA = f(A);
  let fB = f(B);
  for (let i = 0; i < 100 && Math.abs(B - A) > 1e-6; i++) {
    const C = A + ((A - B) * fA) / (fB - fA);
    const fC = f(C);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else {
      fA /= 2;
    }
    B = C;
    fB = fC;
  }
  const vol = Math.exp(A / 2);
  const phiStar = Math.sqrt(phi * phi + vol * vol);
  const phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  const muNew = mu + phiNew * phiNew * sum;
  return { rating: muNew * SCALE + 1500, rd: phiNew * SCALE, vol };
}

/**
 * The person's rating after one puzzle of `puzzleRating`, solved or not; the deviation
 * kept within [MIN_RD, START.rd].
 * @param {Rating} player @param {number} puzzleRating @param {boolean} solved @returns {Rating}
 */
export function afterPuzzle(player, puzzleRating, solved) {
  const next = rate(player, [{ rating: puzzleRating, rd: PUZZLE_RD, score: solved ? 1 : 0 }]);
  return { ...next, rd: Math.min(Math.max(next.rd, MIN_RD), START.rd) };
}

/**
 * A stored rating read back, or the newcomer's when it is missing or damaged.
 * @param {string | null} text @returns {Rating}
 */
export function parseRating(text) {
  try {
    const r = JSON.parse(text ?? '');
    if ([r?.rating, r?.rd, r?.vol].every((x) => typeof x === 'number' && Number.isFinite(x)) && r.rd > 0 && r.vol > 0) {
      return { rating: r.rating, rd: r.rd, vol: r.vol };
    }
  } catch {
    // Fall through to the newcomer's rating.
  }
  return { ...START };
}
