// A pass-through tap on an SSE response for idempotent requests (docs/idempotency.md): the client
// gets every byte as it is produced, and the exact bytes sent are kept for the replay.
import { LIMITS } from "../config/constants.ts";

/** Past this the bytes are not kept (memory bound per stream); the result is then not replayable. */
const MAX_KEPT_BYTES = LIMITS.bodyBytes;

/** `onEnd` gets all bytes when the stream completed (none when `collect` is false: nothing is
 * stored), or null when it did not: the client left (cancel or an aborted request), the source
 * failed, or the stream outgrew MAX_KEPT_BYTES. */
export function tapStream(res: Response, clientSignal: AbortSignal, collect: boolean, onEnd: (bytes: Uint8Array | null) => void | Promise<void>): Response {
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  /** onEnd's promise (multi-instance: the shared store's write), for the last read to await. */
  const end = (bytes: Uint8Array | null): void | Promise<void> => {
    if (ended) return;
    ended = true;
    chunks.length = 0;
    return onEnd(bytes);
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (err) {
        void end(null);
        controller.error(err);
        return;
      }
      if (next.done) {
        // A client that left may see the source end normally (its abort stops the upstream), so
        // the signal decides. Settled before close(): a client that read to the end and retries
        // gets the replay, never a 409 for a claim still marked running.
        const settled = end(clientSignal.aborted || size > MAX_KEPT_BYTES ? null : concat(chunks, size));
        if (settled) await settled;
        controller.close();
        return;
      }
      if (collect) {
        size += next.value.byteLength;
        if (size <= MAX_KEPT_BYTES) chunks.push(next.value);
        else chunks.length = 0;
      }
      controller.enqueue(next.value);
    },
    async cancel(reason) {
      void end(null);
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}
