// POST /requests/{request_id}/feedback (docs/api.md "Feedback"): a rating of one of the key's
// project's requests, stored and fed to the router's quality for that project (docs/routing.md
// "Score"). Only upstream-answered requests count, never cache hits. Scope `chat`.
import { Elysia } from "elysia";
import type { Deps } from "../../pipeline/deps.ts";
import { GwError } from "../../errors/gw-error.ts";
import { ratingTarget } from "../../routing/feedback-quality.ts";
import { parseFeedback } from "../../schema/feedback.ts";
import { readBodyText } from "../../schema/validate.ts";
import { sharedFeedbackStore } from "../../store/postgres/feedback.ts";
import type { FeedbackInput } from "../../store/repos/feedback.ts";
import type { RequestRecord } from "../../store/repos/requests.ts";
import type { SharedState } from "../../store/shared.ts";
import { authPlugin } from "../auth.ts";
import { jsonResponse } from "../context.ts";
import { validationErrorResponse } from "../validation-error.ts";
import { READ_DRAIN_LIMIT_MS } from "../../store/log-writer.ts";

/** The log is written off the response path: a rating sent right after its answer may find the
 * row still queued. Only then is the queue written first (a miss is rare; a drain costs a batch). */
async function loggedRequest(deps: Deps, projectId: string, requestId: string): Promise<RequestRecord | null> {
  if (deps.shared) return sharedLoggedRequest(deps, deps.shared, projectId, requestId);
  const row = deps.repos.requests.get(projectId, requestId);
  if (row || deps.logWriter.pending === 0) return row;
  // Bounded like the other reads (routes/requests.ts): a log that cannot be written never hangs it.
  await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
  return deps.repos.requests.get(projectId, requestId);
}

/** Multi-instance: the request may have been served by another instance; PostgreSQL's log has it
 * (an answer is sent after its row commits; this instance's queue is written first all the same). */
async function sharedLoggedRequest(deps: Deps, shared: SharedState, projectId: string, requestId: string): Promise<RequestRecord | null> {
  const row = await shared.logs.get(projectId, requestId);
  if (row || deps.logWriter.pending === 0) return row;
  await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
  return shared.logs.get(projectId, requestId);
}

/** Multi-instance: the rating is PostgreSQL's; this instance's sums take its key's new figures at
 * once, the others within their next read (docs/scale-out.md). */
async function rateShared(deps: Deps, shared: SharedState, f: FeedbackInput): Promise<number | null> {
  const { previous, sums } = await sharedFeedbackStore(shared.pg).rate(f);
  if (sums) deps.feedback.set(sums);
  return previous;
}

export const feedbackRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/requests/:request_id/feedback",
    async ({ request, params, requestId, auth }) => {
      // The body first: a malformed rating answers 422 whatever the id.
      const parsed = parseFeedback(await readBodyText(request));
      if (!parsed.ok) return validationErrorResponse(parsed, requestId);
      const { rating } = parsed.value;
      const projectId = auth.project.id;
      const rated = await loggedRequest(deps, projectId, params.request_id);
      if (!rated) throw new GwError("not_found", `No request '${params.request_id}' in this project.`, { param: "request_id" });

      const target = ratingTarget(rated);
      const input: FeedbackInput = {
        projectId, requestId: rated.id, modelId: rated.selectedModel, task: rated.task, test: rated.test,
        counted: target !== null, rating, now: deps.clock.now(),
      };
      const previous = deps.shared ? await rateShared(deps, deps.shared, input) : deps.repos.feedback.rate(input);
      // The last rating replaces the first: the request counts once, with its latest rating.
      if (target && !deps.shared) {
        if (previous === null) deps.feedback.record(projectId, target.modelId, target.task, rating, rated.test);
        else deps.feedback.replace(projectId, target.modelId, target.task, previous, rating, rated.test);
      }
      deps.logger.info(
        { request_id: requestId, project_id: projectId, rated: rated.id, rating, replaced: previous, counted: target !== null },
        "request rated",
      );
      return jsonResponse(JSON.stringify({ object: "feedback", request_id: rated.id, rating }), requestId);
    },
    // The body is read raw: a body that is not JSON must answer 422 here, not the 400 of the parser.
    { scope: "chat", parse: "none" },
  );
