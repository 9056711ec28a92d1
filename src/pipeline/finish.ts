// The tail of every request, JSON answer, stream or embeddings, success or failure: meter,
// cache-store and record, once, each timed in trace.timings. Record times nothing of its own:
// it writes the trace, so its time could only land in a trace already written.
import type { ChatCompletion } from "../canonical/completion.ts";
import { toGwError } from "../errors/gw-error.ts";
import { round3 } from "../observability/trace.ts";
import { storeAnswer } from "./cache-store.ts";
import type { Deps } from "./deps.ts";
import { meter } from "./stages/meter.ts";
import { record } from "./stages/record.ts";
import type { RequestState } from "./state.ts";

export interface Tail {
  /** Whether the answer is metered (not for a request that failed before an answer, nor for a
   * test key's embeddings, which cost nothing). */
  meter: boolean;
  /** The whole answer to offer the response cache (it decides whether to keep it). */
  store?: ChatCompletion | null;
}

export function finish(deps: Deps, state: RequestState, tail: Tail): void {
  const spans = state.spans;
  try {
    // Meter's end is cache-store's start: one clock read fewer.
    let mark: number | null = null;
    if (tail.meter) {
      const start = spans.now();
      meter(deps, state);
      mark = spans.now();
      spans.timings.meter = round3(mark - start);
    }
    if (tail.store) {
      const start = mark ?? spans.now();
      storeAnswer(deps, state, tail.store);
      spans.timings.cache_store = round3(spans.now() - start);
    }
  } catch (err) {
    // A request is logged however its tail ends; the caller answers the error.
    state.error ??= toGwError(err);
    state.status = state.error.status;
    record(deps, state);
    throw err;
  }
  record(deps, state);
}
