// Stage route: turns the requested profile or model id into a ranked list of models that can
// serve this request (docs/routing.md). Writes scenario, profile, workload, required quality,
// weights, ranked, candidates, reasons, reason, expected, session and the workflow budget.
import type { RoutingProfile } from "../../config/constants.ts";
import { isProfile } from "../../routing/profiles.ts";
import { GwError, invalidRequest } from "../../errors/gw-error.ts";
import { isTestModel, testScenarioOf } from "../../providers/sandbox/scenarios.ts";
import type { CatalogModel } from "../../routing/catalog-types.ts";
import { estimateCost, maxCostOf } from "../../routing/cost.ts";
import { taskKindOf } from "../../routing/routing-input.ts";
import { diversify, SPREAD_MARGIN } from "../../routing/score.ts";
import { requestSpreadHash, sessionSpreadHash, spreadPick, startWith } from "../../routing/spread.ts";
import { SharedSessionStore } from "../../routing/sessions-shared.ts";
import { scoreEligible } from "../../routing/route-memo.ts";
import type { Deps } from "../deps.ts";
import { need, type Candidate, type RequestState } from "../state.ts";
import { exclusion, explainExclusion, needsOf, OVER_PROJECT_BUDGET, OVER_WORKFLOW_BUDGET, type Needs } from "../eligibility.ts";
import { downgradeRefused, downgradeRoom } from "../../billing/holds.ts";
import { exclusionSummary } from "../../store/trace-reasons.ts";
import { holdWorkflowBudget } from "./route-workflow.ts";
import { sharedDowngradeRoom } from "../../billing/budget-room-shared.ts";


/** Scores every chat model of the catalog that can serve the request (routing/score.ts); the
 * excluded ones are listed with their reason. Writes workload, weights, required quality, expected. */
function scoreProfile(deps: Deps, state: RequestState, profile: RoutingProfile, needs: Needs): void {
  const task = state.task?.task ?? "chat";
  const eligible: CatalogModel[] = [];
  const excluded: Candidate[] = [];
  for (const m of deps.catalog.models) {
    if (m.capabilities.embeddings) continue;
    const why = exclusion(deps, state, m, needs);
    if (why) excluded.push({ model: m.id, provider: m.provider, rank: null, excluded: why });
    else eligible.push(m);
  }
  const routing = state.options.routing;
  const { workload, complexity } = need(state, "analysis");
  const input = {
    profile, mode: routing?.mode, minQuality: routing?.min_quality, task: taskKindOf(task),
    workload, complexity, inputTokens: state.inputTokens, outputTokens: needs.outputBound,
  };
  // Reused while health, feedback and the key hold (routing/route-memo.ts); a project's own key is
  // scored by its own breakers (routing/health.ts), like its admissions.
  const decision = scoreEligible(deps.health, deps.feedback, eligible, input,
    { test: state.auth.test, projectId: state.auth.project.id, credentialOf: (p) => credentialOf(deps, state, p) });
  // gw-auto spreads over equivalent models by the session or the request's last message
  // (routing/spread.ts); a mode or min_quality asks for the ranking as scored.
  const spreading = profile === "gw-auto" && !input.mode && input.minQuality === undefined && decision.equivalents.length > 1;
  const at = spreading ? spreadPick(decision.equivalents, spreadHashOf(state)) : 0;
  const ranked = at > 0 ? startWith(decision.ranked, at) : decision.ranked;
  state.profile = profile;
  state.workload = workload;
  state.requiredQuality = decision.requiredQuality;
  state.weights = decision.weights;
  state.ranked = ranked.map((r) => r.model);
  state.candidates = [
    ...ranked.map((r, rank): Candidate => ({
      model: r.model.id, provider: r.model.provider, rank, score: r.score, quality: r.quality,
      ...(r.meetsQuality ? {} : { below_required_quality: true }),
    })),
    ...excluded,
  ];
  stickToSession(deps, state);
  // Notes, not sentences: those are made when the trace is read (store/trace-reasons.ts); the
  // exclusion summary comes from trace.candidates then. The session id stays in trace.session
  // (which zero retention leaves out), not here.
  const { weights } = decision;
  state.reasons = [
    ["q", decision.requiredQuality, decision.qualityTask, input.mode ?? profile, complexity],
    ["w", workload, weights.quality, weights.cost, weights.latency],
  ];
  if (excluded.length > 0) state.reasons.push(["x"]);
  if (state.session?.sticky && state.session.pinned !== null) state.reasons.push(["s", state.session.pinned]);
  const top = ranked.find((r) => r.model === state.ranked[0]);
  if (!top) return;
  // Within max_cost or a workflow budget: the estimate those checks accepted (their input count),
  // not the ranking's byte-bound figure, so the trace never shows more than the cap.
  const cap = Math.min(needs.maxCost ?? Infinity, state.workflowBudget?.remaining ?? Infinity);
  const cost = cap === Infinity ? top.expectedCost : estimateCost(top.model, needs.inputTokens, needs.ask, needs.outputBound, cap).expected;
  state.expected = { cost, latency_ms: Math.round(top.latencyMs), quality: top.quality };
  const spread = spreading ? `; one of the ${decision.equivalents.length} within ${SPREAD_MARGIN} of it, picked by ${state.sessionId ? "session id" : "the request's last message"}` : "";
  state.reason = top.meetsQuality
    ? `highest score (${spreading ? decision.ranked[0]?.score : top.score}) of ${decision.ranked.length} eligible models for ${decision.qualityTask} at quality >= ${decision.requiredQuality}${spread}`
    : `no eligible model reaches quality ${decision.requiredQuality} for ${decision.qualityTask}: the best available`;
}

const spreadHashOf = (state: RequestState): number =>
  state.sessionId ? sessionSpreadHash(state.sessionId) : requestSpreadHash(need(state, "request").messages);

/** A session's last model goes first when it is still eligible and healthy (routing/sessions.ts). */
function stickToSession(deps: Deps, state: RequestState): void {
  const id = state.sessionId;
  if (!id) return;
  const pin = deps.sessions.get(state.auth.project.id, id);
  if (!pin) return void (state.session = { id, pinned: null, sticky: false, reason: "new session" });
  const at = state.ranked.findIndex((m) => m.id === pin.model);
  const healthy = state.auth.test || deps.health.score(pin.provider, pin.model, credentialOf(deps, state, pin.provider)) > 0;
  if (at < 0 || !healthy) {
    state.session = { id, pinned: pin.model, sticky: false, reason: at < 0 ? "pinned model not eligible for this turn" : "pinned provider unhealthy" };
    return;
  }
  state.ranked.unshift(...state.ranked.splice(at, 1));
  state.session = { id, pinned: pin.model, sticky: true, reason: `kept on the model of turn ${pin.turns}` };
}

/** An explicit model's fallbacks (docs/decisions.md): eligible models at least as good for the
 * task and overall, cheapest first, other providers first; at most two. */
function explicitFallbacks(deps: Deps, state: RequestState, asked: CatalogModel, needs: Needs): CatalogModel[] {
  const task = taskKindOf(state.task?.task ?? "chat");
  const good = deps.catalog.models.filter((m) =>
    m.id !== asked.id && !m.capabilities.embeddings && m.quality[task] >= asked.quality[task] &&
    m.quality.general >= asked.quality.general && exclusion(deps, state, m, needs) === null);
  const cost = (m: CatalogModel) => maxCostOf(m, state.inputTokens, needs.outputBound);
  const picked = diversify(good.sort((a, b) => cost(a) - cost(b)).map((model) => ({ model })))
    .filter((r) => r.model.provider !== asked.provider || good.every((g) => g.provider === asked.provider))
    .slice(0, 2)
    .map((r) => r.model);
  for (const m of picked) state.candidates.push({ model: m.id, provider: m.provider, rank: state.candidates.length });
  return picked;
}

function routeTestModel(deps: Deps, state: RequestState, model: string, needs: Needs): void {
  const scenario = state.auth.test ? testScenarioOf(model) : undefined;
  if (!scenario) throw new GwError("model_not_found", `The model '${model}' does not exist.`, { param: "model" });
  state.scenario = scenario;
  if (scenario.kind === "gateway") throw new GwError(scenario.code, `Simulated ${scenario.code} (test mode).`);
  scoreProfile(deps, state, "gw-auto", needs);
  if (scenario.kind === "fallback") {
    // The second attempt must go to another provider, as a real fallback would.
    const first = state.ranked[0];
    const other = state.ranked.find((m) => m.provider !== first?.provider);
    state.ranked = first && other ? [first, other] : state.ranked.slice(0, 2);
  } else {
    state.ranked = state.ranked.slice(0, 1);
  }
  state.reason = `test scenario ${model}`;
}

export function route(deps: Deps, state: RequestState): void | Promise<void> {
  // Multi-instance: a workflow's spend is what every instance logged (routing/workflow-budgets.ts),
  // read first; once read it is fresh, so the second pass goes on.
  const spent = deps.shared !== null && state.workflowId && state.options.gw?.workflow_budget !== undefined
    ? deps.workflowBudgets.prepare(state.auth.project.id, state.workflowId) : null;
  if (spent) return spent.then(() => route(deps, state));
  // Multi-instance: a downgrade budget's room is PostgreSQL's spend counters, read once (no read for
  // other projects); single-node's is read from memory in routeNow.
  const room = deps.shared !== null && !state.auth.test
    ? sharedDowngradeRoom(deps.shared.pg, state.auth.project.id, state.auth.rules.terms, deps.clock.now()) : null;
  if (room) {
    return room.then((r) => {
      state.budgetRoom = r;
      return pinned(deps, state);
    });
  }
  return pinned(deps, state);
}

function pinned(deps: Deps, state: RequestState): void | Promise<void> {
  // Multi-instance: the session's pin is Redis's, brought in first (routing/sessions-shared.ts).
  const sessions = deps.sessions;
  if (deps.shared !== null && state.sessionId && sessions instanceof SharedSessionStore) {
    const fetched = sessions.prefetch(state.auth.project.id, state.sessionId);
    if (fetched) return fetched.then(() => routed(deps, state));
  }
  return routed(deps, state);
}

/** Multi-instance: the first attempt's worst case is then held against the workflow's budget across
 * instances (route-workflow.ts); single-node reserves it in the call stage. */
function routed(deps: Deps, state: RequestState): void | Promise<void> {
  routeNow(deps, state);
  if (deps.shared !== null) return holdWorkflowBudget(deps, state, () => routeNow(deps, state));
}

function routeNow(deps: Deps, state: RequestState): void {
  const req = need(state, "request");
  // An alias is routed as its target; the log keeps the requested id (docs/config.md "Aliases").
  const model = deps.catalog.routed(req.model);
  const needs = needsOf(state);
  state.outputBound = needs.outputBound;
  // Test keys are never charged, so no budget narrows their models. Multi-instance: set by route().
  if (deps.shared === null) state.budgetRoom = state.auth.test ? undefined : downgradeRoom(deps.billing, state.auth.project.id, state.auth.rules.terms, deps.clock.now());
  const budget = state.options.gw?.workflow_budget;
  if (budget !== undefined) {
    const remaining = state.workflowId ? deps.workflowBudgets.remaining(state.auth.project.id, state.workflowId, budget) : budget;
    state.workflowBudget = { budget, remaining };
  }
  if (isTestModel(model)) routeTestModel(deps, state, model, needs);
  else if (isProfile(model)) {
    scoreProfile(deps, state, model, needs);
  } else {
    const m = deps.catalog.resolve(model);
    if (!m) throw new GwError("model_not_found", `The model '${model}' does not exist.`, { param: "model" });
    if (m.capabilities.embeddings) throw invalidRequest(`'${m.id}' is an embedding model; use /embeddings.`, "model");
    const why = exclusion(deps, state, m, needs);
    state.candidates.push({ model: m.id, provider: m.provider, rank: why ? null : 0, ...(why ? { excluded: why } : {}) });
    if (!why) state.ranked.push(m);
    if (why?.startsWith(OVER_PROJECT_BUDGET)) downgradeRefused(deps.billing, state.auth.project.id, state.requestId, state.auth.rules.terms, deps.shared === null ? state.budgetRoom : undefined);
    if (why?.startsWith(OVER_WORKFLOW_BUDGET) || why?.startsWith(OVER_PROJECT_BUDGET)) throw new GwError("budget_exceeded", `The model '${m.id}' ${why}.`, { param: "model" });
    if (why) throw new GwError("no_model_available", `The model '${m.id}' cannot serve this request: ${explainExclusion(why, m.provider)}.`, { param: "model" });
    state.reason = "model requested explicitly";
    state.moreCandidates = () => explicitFallbacks(deps, state, m, needs);
  }
  if (state.ranked.length === 0 && state.candidates.some((c) => c.excluded?.startsWith(OVER_WORKFLOW_BUDGET))) {
    throw new GwError("budget_exceeded", `The workflow's remaining budget ($${state.workflowBudget?.remaining}) cannot cover any model for this request.`);
  }
  if (state.ranked.length === 0 && state.candidates.some((c) => c.excluded?.startsWith(OVER_PROJECT_BUDGET))) {
    downgradeRefused(deps.billing, state.auth.project.id, state.requestId, state.auth.rules.terms, deps.shared === null ? state.budgetRoom : undefined);
    throw new GwError("budget_exceeded", `The project's ${state.budgetRoom?.period} budget cannot cover any model for this request (budget_action downgrade); the trace lists every model and why.`);
  }
  if (state.ranked.length === 0) {
    const why = exclusionSummary(state.candidates).slice(0, 3).join("; ");
    const none = why.includes("provider not enabled") && deps.providers.enabled().length === 0 ? " No provider is enabled: set one's API key, e.g. OPENAI_API_KEY (docs/providers.md)." : "";
    throw new GwError("no_model_available", `No model can serve this request (${why}); the trace lists every model and why.${none}`);
  }
}

/** The project's own credential for this provider (BYOK), or undefined for the operator's key. */
function credentialOf(deps: Deps, state: RequestState, provider: string): string | undefined {
  return deps.projectProviders.resolve(state.auth.project.id, provider, state.auth.key.byok)?.healthKey;
}
