// Stores a complete fresh answer in the response cache when the classification allows, with its
// TTL and tags (trace.cache.stored); a failing store loses the entry, never the answer
// (docs/cache.md "TTL and tags"; retention redacted: docs/retention.md).
import { ttlOf, cacheTagsOf } from "../cache/ttl-and-tags.ts";
import type { ChatCompletion } from "../canonical/completion.ts";
import type { Deps } from "./deps.ts";
import { contentText, sensitiveIn } from "./retention.ts";
import { cacheUnavailable } from "./cache-slice.ts";
import { need, type RequestState } from "./state.ts";
import { GwError } from "../errors/gw-error.ts";
import type { Invalidation } from "../schema/cache-invalidate.ts";
import { RedisFailure } from "../store/redis/redis-call.ts";

const STORABLE_FINISH = new Set(["stop", "length"]);

/** The single user question of a semantic-eligible request (what the index embeds). */
function questionOf(deps: Deps, state: RequestState): string | null {
  if (!state.cache?.semantic.eligible) return null;
  // Test keys never cause a live provider call: with a provider embedder their questions are not indexed.
  if (state.auth.test && deps.semantic?.callsProvider) return null;
  // The caller's question, as the lookup embedded it, not the token engine's rewrite.
  const user = (state.callerRequest ?? need(state, "request")).messages.find((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : null;
}

export function storeAnswer(deps: Deps, state: RequestState, completion: ChatCompletion): void {
  const cache = state.cache;
  if (!cache?.write || cache.result === "hit" || !cache.exactKey || !cache.partition || state.error || !state.selected || !state.usage) return;
  const choice = completion.choices[0];
  if (completion.choices.length !== 1 || !choice || !STORABLE_FINISH.has(choice.finish_reason ?? "") || choice.message.tool_calls?.length) return;
  try {
    const projectId = state.auth.project.id;
    const request = need(state, "request");
    const task = need(state, "task");
    const tags = cacheTagsOf(state.options, projectId, task);
    const ttl = ttlOf(request, task, [...tags, ...state.tags], state.inputTokens, state.auth.rules.cache.ttlSeconds);
    const now = deps.clock.now();
    const { id: _id, ...answer } = completion;
    if (state.auth.rules.retention === "redacted") {
      // Both sides: the answer is stored, and the request's text as the semantic question (and
      // an answer to a personal request is itself about that person).
      const found = sensitiveIn(contentText(request.messages), contentText(answer));
      if (found) {
        cache.stored = { skipped: "retention_redacted", found };
        return;
      }
    }
    const question = questionOf(deps, state);
    const record = {
      projectId, key: cache.exactKey, partition: cache.partition, model: state.selected.id, provider: state.provider ?? "",
      body: JSON.stringify(answer), usage: state.usage, tags, question, createdAt: now, expiresAt: now + ttl.seconds * 1000,
    };
    cache.stored = { ttl_s: ttl.seconds, ttl_class: ttl.class, tags };
    if (deps.shared !== null) {
      // Multi-instance: written to Redis off the answer's path; a failed write only loses the entry.
      const requestId = state.requestId;
      const answers = deps.shared.fast.answers;
      if (answers.outage.skip()) return;
      const semantic = deps.semantic;
      answers.put({ ...record, usage: { ...record.usage } }).then((entry) => {
        // Indexed here and, through the semantic stream, on every other instance.
        if (question !== null) semantic?.add(entry.id, entry.partition, question, projectId, entry.expiresAt);
      }, (err: unknown) => {
        // Redis down is said once (cache-lookup's miss says it too), anything else each time.
        if (!(err instanceof RedisFailure)) deps.logger.warn({ err, request_id: requestId }, "response cache unavailable; the answer was not stored");
        else if (answers.outage.fail()) deps.logger.error({ err }, "Redis unavailable: the response cache is skipped (misses, nothing stored) until it answers");
      });
      return;
    }
    const entry = deps.answers.put(record);
    if (question !== null) deps.semantic?.add(entry.id, entry.partition, question, projectId);
  } catch (err) {
    cacheUnavailable(deps, state, err);
  }
}

/** Empties a project's cached answers by tags or whole (POST /cache/invalidate, the dashboard):
 * multi-instance on Redis, for every instance at once. Redis unreachable is a 503, never a count. */
export function invalidateAnswers(deps: Deps, projectId: string, what: Invalidation): Promise<number> {
  if (deps.shared === null) return deps.answers.invalidate(projectId, what);
  return deps.shared.fast.answers.invalidate(projectId, what).then((count) => {
    // Entries removed by tag are reported by the store; a whole project is told to the indexes here.
    if ("all" in what) deps.semantic?.emptied?.(projectId);
    return count;
  }, (err: unknown) => {
    if (!(err instanceof RedisFailure)) throw err;
    deps.logger.error({ err, project_id: projectId }, "response cache invalidation failed: Redis unavailable");
    throw new GwError("service_unavailable", "The response cache cannot be reached right now; nothing was invalidated. Retry later.", { retryAfter: 1 });
  });
}
