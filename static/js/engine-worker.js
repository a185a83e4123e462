// The computer's search, off the page's thread: a module Worker that loads the same
// WebAssembly build as the page (mill-core and mill-engine) and answers one request at a
// time. A search takes up to about a second; meanwhile the page stays responsive.
//
//   request: { id, record, level, seed, movetime, tablebase? }   (record: WasmGame.export_record JSON)
//   reply:   { id, ok: true, turn, actions, score, depth, nodes, elapsedMs, pv, tbHits }
//          | { id, ok: false, error: { code, message } }
//
// Review's analysis (analysis.js, in a worker of its own) asks about one position at a time:
//   request: { id, kind: 'analyse', record, nodes, tablebase? }   (a fixed budget: the same answer each time)
//   reply:   { id, ok: true, toMove, score, value, winIn, over, best, actions, pv, depth, … }
//
// `tablebase` is the URL of the server's manifest of endgame tables: when the game is in
// them or one removal before, the classes it could use are fetched and loaded first
// (tablebase.js), and the engine plays and scores from them (at Perfect, the rule set
// solved whole where the server has it: Six); without it, or when that
// fails, the engine searches as before. What was fetched is in `self.millTables` (tests
// and scripts/measure-computer read it).
//
// A position of a class the server answers but does not serve (too big to download: Nine's
// 5 v 5) is asked of the server (GET /api/tb/probe, tablebase.js's `probe`): the computer
// plays the tables' turn from its answer (depth 0, `server: true`), and review's judgement
// is the tables' exact value. When the server cannot answer, the engine searches as before.
//
// The page cancels a search by terminating the worker (computer.js); there is no
// cancel message, as a running search never reads one.

import init, {
  analyse_nodes as analyseNodes,
  best_turn as bestTurn,
  load_placing as loadPlacing,
  load_tablebase as loadTablebase,
  tablebase_wanted as tablebaseWanted,
} from '/pkg/mill_wasm.js';
import { createTables, judgedFromServer, playedFromServer } from './tablebase.js';

const ready = init();
const tables = createTables({ fetch: (url, options) => fetch(url, options), wanted: tablebaseWanted, load: loadTablebase, loadPlacing });
self.millTables = tables.status;
// The wasm's memory in bytes (it only grows: tables, the transposition table), for
// scripts/measure-tablebase.
self.millMemory = async () => (await ready).memory.buffer.byteLength;

self.addEventListener('message', async (event) => {
  const { id, kind, record, level, seed, movetime, nodes, tablebase } = event.data ?? {};
  let reply;
  try {
    await ready;
    // Perfect wants the rule set solved whole (Six's placing table and every ending).
    const withTables = typeof tablebase === 'string' && tablebase !== '';
    if (withTables) await tables.prepare(String(record), tablebase, kind !== 'analyse' && level === 'perfect');
    const start = performance.now();
    if (kind === 'analyse') {
      reply = JSON.parse(analyseNodes(String(record), Number(nodes)));
      // Only where the worker's own tables did not judge it exactly.
      const asked = withTables && reply.ok && !reply.over && !reply.tablebase ? await tables.probe(String(record), tablebase) : null;
      if (asked) reply = judgedFromServer(reply, asked);
    } else {
      const asked = withTables ? await tables.probe(String(record), tablebase) : null;
      reply = asked ? playedFromServer(asked, performance.now() - start) : JSON.parse(bestTurn(String(record), String(level), Number(seed), Number(movetime)));
    }
  } catch (error) {
    reply = { ok: false, error: { code: 'worker', message: String(error?.message ?? error) } };
  }
  self.postMessage({ id, ...reply });
});
