// The computer's search, off the page's thread: a module Worker that loads the same
// WebAssembly build as the page (mill-core and mill-engine) and answers one request at a
// time. A search takes up to about a second; meanwhile the page stays responsive.
//
//   request: { id, record, level, seed, movetime }   (record: WasmGame.export_record JSON)
//   reply:   { id, ok: true, turn, actions, score, depth, nodes, elapsedMs, pv }
//          | { id, ok: false, error: { code, message } }
//
// Review's analysis (analysis.js, in a worker of its own) asks about one position at a time:
//   request: { id, kind: 'analyse', record, movetime }
//   reply:   { id, ok: true, toMove, score, value, winIn, over, best, actions, pv, depth, … }
//
// The page cancels a search by terminating the worker (computer.js); there is no
// cancel message, as a running search never reads one.

import init, { analyse, best_turn as bestTurn } from '/pkg/mill_wasm.js';

const ready = init();

self.addEventListener('message', async (event) => {
  const { id, kind, record, level, seed, movetime } = event.data ?? {};
  let reply;
  try {
    await ready;
    reply = JSON.parse(
      kind === 'analyse'
        ? analyse(String(record), Number(movetime))
        : bestTurn(String(record), String(level), Number(seed), Number(movetime)),
    );
  } catch (error) {
    reply = { ok: false, error: { code: 'worker', message: String(error?.message ?? error) } };
  }
  self.postMessage({ id, ...reply });
});
