// The one stage runner (chat's and embeddings' manifests): a span per stage, a timing for call
// (its time is in its llm spans), and a thrown error turned into the span's status, the failed
// step and the request's outcome, recorded through the tail (finish.ts).
import { toGwError, type GwError } from "../errors/gw-error.ts";
import { round3 } from "../observability/trace.ts";
import type { Deps } from "./deps.ts";
import { finish } from "./finish.ts";
import { gwHeaders } from "./gw-object.ts";
import { settleDisconnected, type RequestState } from "./state.ts";
import { storageRefusal } from "./storage-gate.ts";

export type Stage<S extends RequestState> = (deps: Deps, state: S) => void | Promise<void>;
/** A stage with nothing to do for a request is skipped: no span, no timing. */
export type Applies<S extends RequestState> = (deps: Deps, state: S) => boolean;
export type Manifest<S extends RequestState> = ReadonlyArray<readonly [name: string, stage: Stage<S>, applies?: Applies<S>]>;

export type Failed = { kind: "error"; error: GwError; headers: Record<string, string> };

/** Runs one stage in its span, from `start`; its end time. Synchronous stages stay synchronous:
 * no promise, and no other request's work can run inside their span. */
function runStage<S extends RequestState>(deps: Deps, state: S, name: string, stage: Stage<S>, start: number): number | Promise<number> {
  let pending: void | Promise<void>;
  try {
    pending = stage(deps, state);
  } catch (err) {
    throw stageFailed(state, name, start, err);
  }
  if (!(pending instanceof Promise)) return stageDone(state, name, start);
  return pending.then(
    () => stageDone(state, name, start),
    (err: unknown) => {
      throw stageFailed(state, name, start, err);
    },
  );
}

function stageDone(state: RequestState, name: string, start: number): number {
  const end = state.spans.now();
  if (name === "call") state.spans.timings.call = round3(end - start);
  else state.spans.add(name, start, end, null);
  return end;
}

function stageFailed(state: RequestState, name: string, start: number, err: unknown): GwError {
  const error = toGwError(err);
  if (name !== "call") state.spans.add(name, start, state.spans.now(), error.code);
  state.failedStep = name;
  return error;
}

/** The stages from `from` on, in order, until one throws or `stop` says the request is answered
 * (a cache hit); a promise only once a stage returned one. A synchronous stage's end is the next
 * stage's start (one clock read per boundary); after a promise the clock is read again, so time
 * spent on other requests' work is in no span. */
function runFrom<S extends RequestState>(deps: Deps, state: S, manifest: Manifest<S>, stop: ((state: S) => boolean) | undefined, from: number): void | Promise<void> {
  let mark: number | null = null;
  for (let i = from; i < manifest.length; i++) {
    const [name, stage, applies] = manifest[i]!;
    if (applies && !applies(deps, state)) continue;
    const done: number | Promise<number> = runStage(deps, state, name, stage, mark ?? state.spans.now());
    if (typeof done !== "number") return done.then(() => (stop?.(state) ? undefined : runFrom(deps, state, manifest, stop, i + 1)));
    mark = done;
    if (stop?.(state)) return;
  }
}

/** Multi-instance: a promise, once the failure's log row is committed (finish.ts). */
function fail(deps: Deps, state: RequestState, err: unknown): Failed | Promise<Failed> {
  const error = toGwError(err);
  if (error.code === "internal_error") deps.logger.error({ err: error.cause ?? err, request_id: state.requestId }, state.endpoint === "embeddings" ? "embeddings pipeline failed" : "pipeline failed");
  state.error = error;
  state.status = error.status;
  settleDisconnected(state); // a client that left: no error of anyone's (status 499)
  const tail = finish(deps, state, { meter: false });
  const failed: Failed = { kind: "error", error, headers: gwHeaders(state) };
  return tail ? tail.then(() => failed) : failed;
}

/** Runs a manifest: null when the request is ready to answer, else its failure, already recorded.
 * Storage that cannot record the request refuses it before any stage (storage-gate.ts). */
export function runManifest<S extends RequestState>(
  deps: Deps, state: S, manifest: Manifest<S>, stop?: (state: S) => boolean,
): Failed | null | Promise<Failed | null> {
  const refused = storageRefusal(deps, state);
  if (refused) return refused;
  let pending: void | Promise<void>;
  try {
    pending = runFrom(deps, state, manifest, stop, 0);
  } catch (err) {
    return fail(deps, state, err);
  }
  if (!pending) return null;
  return pending.then(() => null, (err: unknown) => fail(deps, state, err));
}
