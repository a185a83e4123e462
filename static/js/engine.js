// Owns the engine's Web Worker on the page (engine-worker.js runs mill-engine in it): one
// search at a time, a search under way cancelled by ending the worker. Used by vs computer
// (computer.js), review's analysis (review.js) and the puzzles page; kept apart from the
// computer's controller so that review loads the worker wrapper without it (later.js).
// Browser only (Worker).

/**
 * The engine in a module Worker: search(request) resolves to the worker's reply;
 * cancel() ends a search under way by terminating the worker (the next search starts a
 * fresh one, reusing the browser's cached module) and resolves it as cancelled.
 */
export function engineWorker(url = '/js/engine-worker.js') {
  let worker = null;
  let pending = null; // { id, resolve }
  let nextId = 1;

  function settle(reply) {
    const p = pending;
    pending = null;
    p?.resolve(reply);
  }

  function spawn() {
    const w = new Worker(url, { type: 'module' });
    w.addEventListener('message', (event) => {
      if (!pending || event.data?.id !== pending.id) return;
      // A search that threw (a trap in the wasm) may leave the module unusable: the next
      // search gets a fresh worker.
      if (event.data.error?.code === 'worker') {
        w.terminate();
        if (worker === w) worker = null;
      }
      settle(event.data);
    });
    w.addEventListener('error', (event) => {
      event.preventDefault?.();
      settle({ ok: false, error: { code: 'worker', message: event.message || 'its program did not load' } });
      w.terminate();
      if (worker === w) worker = null;
    });
    return w;
  }

  return {
    search(request) {
      if (pending) this.cancel();
      worker ??= spawn();
      const id = nextId++;
      return new Promise((resolve) => {
        pending = { id, resolve };
        worker.postMessage({ id, ...request });
      });
    },
    cancel() {
      if (!pending) return;
      worker?.terminate();
      worker = null;
      settle({ ok: false, error: { code: 'cancelled', message: 'The search was cancelled.' } });
    },
    get busy() {
      return pending !== null;
    },
  };
}
