// A stand-in engine worker for test/optimization/engine-worker.test.ts: it loads, says ready, and
// never answers a job, as a worker stuck in a run would look from the request thread.
declare const self: Worker;
self.onmessage = () => {};
self.postMessage({ type: "ready" });
