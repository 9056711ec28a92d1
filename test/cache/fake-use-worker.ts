// A stand-in for the USE-lite worker (src/cache/embedder/use-worker.ts) speaking the same protocol,
// so the request-thread client's queueing, batching, timeouts and crash handling are tested without
// the model. Each text is a command: "slow:<ms>" answers late, "fail" answers with an error, "crash"
// throws in the worker; anything else gets a unit vector made from its length.
import type { UseWorkerReply, UseWorkerRequest } from "../../src/cache/embedder/use-worker.ts";

declare const self: Worker;
const DIMS = 512;

self.postMessage({ type: "ready", loadMs: 1 } satisfies UseWorkerReply);

self.onmessage = async (event: MessageEvent<UseWorkerRequest>) => {
  const { id, texts } = event.data;
  for (const text of texts) {
    if (text === "crash") throw new Error("fake worker crash");
    if (text === "fail") return self.postMessage({ type: "error", id, error: "fake failure" } satisfies UseWorkerReply);
    if (text.startsWith("slow:")) await Bun.sleep(Number(text.slice(5)));
  }
  const vectors = new Float32Array(texts.length * DIMS);
  texts.forEach((text, i) => {
    vectors[i * DIMS + (text.length % DIMS)] = 1;
  });
  // The batch size travels in computeMs, so a test can see how calls were grouped.
  self.postMessage({ type: "result", id, vectors, computeMs: texts.length } satisfies UseWorkerReply, [vectors.buffer]);
};
