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

/** A promise only in the multi-instance mode, where the charge (meter) and the log row (record)
 * commit in PostgreSQL before the answer: the caller awaits it then. */
export function finish(deps: Deps, state: RequestState, tail: Tail): void | Promise<void> {
  const start = tail.meter ? state.spans.now() : null;
  let metering: void | Promise<void> = undefined;
  try {
    if (tail.meter) metering = meter(deps, state);
  } catch (err) {
    failed(deps, state, err);
  }
  if (metering) return metering.then(() => rest(deps, state, tail, start), (err: unknown) => failed(deps, state, err));
  return rest(deps, state, tail, start);
}

/** After meter (started at `meterStart`, null when not metered): cache-store, then record (whose
 * promise, multi-instance only, is the row's commit). */
function rest(deps: Deps, state: RequestState, tail: Tail, meterStart: number | null): void | Promise<void> {
  const spans = state.spans;
  try {
    // Meter's end is cache-store's start: one clock read fewer.
    let mark: number | null = null;
    if (meterStart !== null) {
      mark = spans.now();
      spans.timings.meter = round3(mark - meterStart);
    }
    if (tail.store) {
      const start = mark ?? spans.now();
      storeAnswer(deps, state, tail.store);
      spans.timings.cache_store = round3(spans.now() - start);
    }
  } catch (err) {
    failed(deps, state, err);
  }
  return record(deps, state);
}

/** A request is logged however its tail ends; the caller answers the error. */
function failed(deps: Deps, state: RequestState, err: unknown): never {
  state.error ??= toGwError(err);
  state.status = state.error.status;
  record(deps, state);
  throw err;
}
