// Owns what the page says of a game against the computer whose code may not have loaded
// yet (vs-computer.js and computer.js load on first use, later.js): whether the computer
// has the move, the status line while it has, and the result from the person's side.

const otherSide = (/** @type {string} */ side) => (side === 'light' ? 'dark' : 'light');

/** True when the game is on and the side to move (or to remove) is the computer's. */
export function isComputerToMove(snapshot, human) {
  return !!snapshot && !snapshot.outcome && snapshot.turn !== human;
}

/**
 * The status line in this mode while the computer has the move, or null (then the
 * ordinary status for the person's side applies). Returns {key, params, tone}.
 */
export function computerStatus(snapshot, human, failed = false) {
  if (!isComputerToMove(snapshot, human)) return null;
  const side = otherSide(human);
  if (failed) return { key: 'computer.failed', params: { side }, tone: 'alert' };
  const key = snapshot.pendingRemovals > 0 ? 'computer.removing' : 'computer.thinking';
  return { key, params: { side }, tone: 'wait' };
}

/** The result line from the person's point of view: 'computer.youWin', '…youLose' or null. */
export function resultForPerson(snapshot, human) {
  const o = snapshot?.outcome;
  if (o?.kind !== 'win') return null;
  return o.winner === human ? 'computer.youWin' : 'computer.youLose';
}
