// Taps a provider stream on its way out: time to first token, usage (counted when the upstream
// sends none), the bounded answer text, then gw.summary or an in-stream error; the tail runs when
// it ends, however it ends (docs/api.md "Chat completions", "Errors").
import { GwError, toGwError } from "../errors/gw-error.ts";
import { isObject } from "../lib/json.ts";
import { attemptLimits, oversize } from "../providers/upstream-limits.ts";
import { UpstreamFailure } from "../canonical/failure.ts";
import type { ChatChunk, ChatCompletion, ChunkEvent } from "../canonical/completion.ts";
import { normalizeUsage } from "../providers/usage.ts";
import type { Deps } from "./deps.ts";
import { estimateUsage } from "./estimate-usage.ts";
import { gwObject } from "./gw-object.ts";
import { endStreamAttempt } from "./attempt-log.ts";
import { finish } from "./finish.ts";
import { cancel, cancelledError, settleDisconnected, type RequestState } from "./state.ts";

export type OutEvent =
  | ChunkEvent
  | { type: "summary"; body: Record<string, unknown> }
  | { type: "error"; body: { error: Record<string, unknown> } };

/** The answer text of a chunk. Adapters check chunk shapes; this still reads only what has the
 * expected type, so a stray shape can never throw here (an internal error) instead of upstream. */
function deltaText(chunk: ChatChunk): string {
  let text = "";
  for (const c of chunk.choices) {
    const delta: unknown = isObject(c) ? c.delta : undefined;
    if (!isObject(delta)) continue;
    if (typeof delta.content === "string") text += delta.content;
    if (!Array.isArray(delta.tool_calls)) continue;
    for (const t of delta.tool_calls as unknown[]) {
      const fn = isObject(t) ? t.function : undefined;
      if (!isObject(fn)) continue;
      if (typeof fn.name === "string") text += fn.name;
      if (typeof fn.arguments === "string") text += fn.arguments;
    }
  }
  return text;
}

/** What the stream failed with. Before the upstream finished, anything that is not already an
 * UpstreamFailure came from the adapter or from reading its chunks: the provider's odd stream is
 * its fault (upstream_error), never an internal error. After it, a failure is gw's own. */
function streamFailure(deps: Deps, state: RequestState, err: unknown, finished: boolean): GwError {
  if (!finished && state.cancelled) return cancelledError(state);
  if (err instanceof UpstreamFailure) return err.toGwError();
  if (finished || err instanceof GwError) return toGwError(err);
  deps.logger.error({ err }, "provider stream threw an unexpected error");
  return UpstreamFailure.unexpected("The provider stream failed unexpectedly.").toGwError();
}

export async function* streamOut(deps: Deps, state: RequestState, events: AsyncIterable<ChunkEvent>): AsyncGenerator<OutEvent> {
  let streamId: string | null = null;
  let created = Math.floor(state.createdAt / 1000);
  let produced = "";
  let content = "";
  let finishReason: string | null = null;
  let upstreamModel: string | null = null;
  let finished = false;
  let failure: GwError | null = null;
  let store: ChatCompletion | null = null;
  // Only an answer the cache will store is collected whole.
  const collect = state.cache?.write === true && state.cache.result !== "hit";
  const maxText = attemptLimits(state.attemptAbort)?.textChars ?? Number.POSITIVE_INFINITY;
  try {
    for await (const event of events) {
      const chunk = event.chunk;
      streamId ??= chunk.id;
      created = chunk.created ?? created;
      const text = deltaText(chunk);
      if (collect) {
        upstreamModel ??= chunk.model;
        for (const c of chunk.choices) {
          if (c.index !== 0) continue;
          if (typeof c.delta?.content === "string") content += c.delta.content;
          if (c.finish_reason) finishReason = c.finish_reason;
        }
      }
      if (text) {
        state.ttftMs ??= performance.now() - state.t0;
        produced += text;
        // An endless or runaway answer: stop the upstream, keep (and bill) only what fits.
        if (produced.length > maxText) {
          const failure = oversize(state.provider ?? "provider", `its text passed ${maxText} characters`);
          state.attemptAbort?.abort(failure);
          throw failure;
        }
      }
      if (chunk.usage) state.usage = normalizeUsage(chunk.usage) ?? undefined;
      yield event;
    }
    finished = true;
    endStreamAttempt(state, null);
    const usage = (state.usage ??= estimateUsage(state, produced));
    // The answer as one completion, for the response cache (tool calls are never cached).
    if (collect) store = {
      id: streamId ?? "", object: "chat.completion", created, model: upstreamModel ?? state.selected?.id ?? "",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finishReason }], usage,
    };
  } catch (err) {
    // The client went away and its abort broke the upstream read: that is a disconnect (finally
    // below), not a provider failure to log and count against availability. A shutdown that
    // stopped the stream still tells the client so, in the stream.
    if (finished || state.cancelReason !== "client") {
      failure = streamFailure(deps, state, err, finished);
      if (!finished) endStreamAttempt(state, failure.code);
      state.error = failure;
      state.failedStep = "call";
      state.usage ??= estimateUsage(state, produced);
    }
  } finally {
    if (!finished && !state.error) {
      // The client went away: stop the upstream and still meter what was produced.
      state.clientDisconnected = true;
      cancel(state);
      // Logged with its own status, not as a 200 success (issue 15 item 7).
      settleDisconnected(state);
      endStreamAttempt(state, null);
      state.usage ??= estimateUsage(state, produced);
    }
    // The tail, once, however the stream ended: what was produced is metered and recorded.
    try {
      const tail = finish(deps, state, { meter: true, store });
      if (tail) await tail;
    } catch (err) {
      failure ??= toGwError(err); // the client hears it in the stream, not as a cut connection
    }
  }
  if (failure) yield { type: "error", body: failure.toBody(state.requestId) };
  else if (finished) yield { type: "summary", body: { id: streamId, object: "gw.summary", created, model: state.selected?.id, choices: [], gw: gwObject(state) } };
}
