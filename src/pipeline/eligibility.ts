// Which models may serve a request: capabilities, context, enabled provider or own key, policy
// (providers, regions), max_cost and budget remainders; each exclusion is a reason the trace shows
// (docs/routing.md "Eligibility").
import { expectedOutputTokens } from "../analysis/analyzer.ts";
import { enablingVariables } from "../config/provider-env.ts";
import { countMessageTokens } from "../analysis/tokens.ts";
import type { CatalogModel } from "../routing/catalog-types.ts";
import { estimateCost, outputAskOf, worstCostOf, type OutputAsk } from "../routing/cost.ts";
import type { Deps } from "./deps.ts";
import { need, type RequestState } from "./state.ts";
import { formatUsd } from "../billing/money.ts";
import { servedByok, worstCharge } from "../billing/worst-charge.ts";

export const OVER_WORKFLOW_BUDGET = "could cost more than the workflow budget allows";
export const OVER_PROJECT_BUDGET = "could cost more than the project's budget allows";

export interface Needs {
  tools: boolean;
  vision: boolean;
  json: boolean;
  /** max_tokens when given, else the task's expected output (routing-input.ts). */
  outputBound: number;
  maxCost: number | undefined;
  /** n and the per-choice cap: the worst-case output that max_cost and the budget are held to. */
  ask: OutputAsk;
  /** Input tokens: the strict byte bound, or the tokenizer's exact count when the bound fails a limit. */
  inputTokens(exact: boolean): number;
}

export function needsOf(state: RequestState): Needs {
  const req = need(state, "request");
  let exact: number | undefined;
  return {
    tools: (req.tools?.length ?? 0) > 0,
    vision: req.messages.some((m) => Array.isArray(m.content) && m.content.some((p) => p.type === "image_url")),
    json: req.response_format !== undefined && req.response_format.type !== "text",
    outputBound: req.max_completion_tokens ?? req.max_tokens ?? expectedOutputTokens(state.analysis?.task ?? "chat"),
    maxCost: state.options.max_cost,
    ask: outputAskOf(req),
    inputTokens: (wantExact) => (wantExact ? (exact ??= countMessageTokens(req.messages)) : state.inputTokens),
  };
}

/** Checks a limit on the cheap bound, and only when that fails, on the exact count. */
export function fits(needs: Needs, ok: (tokens: number) => boolean): boolean {
  return ok(needs.inputTokens(false)) || ok(needs.inputTokens(true));
}

/** Why the project or key may not use this model's provider (policy providers and regions, an
 * enabled provider or the project's own key), or null when it may. Shared with /embeddings. */
/** The provider exclusions most candidates of most requests get, made once per provider (the
 * catalog's providers: a small, fixed set) instead of once per model per request. */
const perProvider = (make: (provider: string) => string) => {
  const made = new Map<string, string>();
  return (provider: string): string => {
    let text = made.get(provider);
    if (text === undefined) made.set(provider, (text = make(provider)));
    return text;
  };
};
const NOT_ALLOWED = perProvider((p) => `provider ${p} not in the project's allowed_providers`);
const BLOCKED = perProvider((p) => `provider ${p} blocked by the project's policy`);
const NO_BYOK_KEY = perProvider((p) => `no project key for ${p} (the API key is BYOK only)`);
const NOT_ENABLED = perProvider((p) => `provider ${p} not enabled`);

/** An exclusion as an error message gives it: "provider openai not enabled" names the variable
 * that enables it (the trace keeps the short form). */
export function explainExclusion(why: string, provider: string): string {
  if (why !== NOT_ENABLED(provider)) return why;
  const variables = enablingVariables(provider);
  return variables ? `${why}; set ${variables} to enable it` : `${why}; gw has no adapter for '${provider}'`;
}

export function providerExclusion(deps: Deps, state: RequestState, m: CatalogModel): string | null {
  const policy = state.auth.rules.providers;
  if (policy.allowed && !policy.allowed.includes(m.provider)) return NOT_ALLOWED(m.provider);
  if (policy.blocked?.includes(m.provider)) return BLOCKED(m.provider);
  const regions = policy.regions;
  if (regions && !m.regions?.some((r) => regions.includes(r))) {
    // Fail closed: a model whose region nobody declared cannot be shown to satisfy the policy.
    return m.regions ? `region ${m.regions.join("/")} not in the project's regions` : "region not declared (set `regions` in GW_CONFIG)";
  }
  if (!state.auth.test && !deps.projectProviders.resolve(state.auth.project.id, m.provider, state.auth.key.byok)) {
    return state.auth.key.byok ? NO_BYOK_KEY(m.provider) : NOT_ENABLED(m.provider);
  }
  return null;
}

/** Why a model cannot serve this request, or null when it can. */
export function exclusion(deps: Deps, state: RequestState, m: CatalogModel, needs: Needs): string | null {
  if (m.capabilities.embeddings) return "embedding model";
  const denied = providerExclusion(deps, state, m);
  if (denied) return denied;
  if (needs.tools && !m.capabilities.tools) return "no tool support";
  if (needs.vision && !m.capabilities.vision) return "no vision support";
  if (needs.json && !m.capabilities.json) return "no JSON mode";
  if (!fits(needs, (t) => t + needs.outputBound <= m.context_window)) {
    return `context window ${m.context_window} too small`;
  }
  const wf = state.workflowBudget;
  if (wf && !fits(needs, (t) => worstCostOf(m, t, needs.ask) <= wf.remaining)) {
    return `${OVER_WORKFLOW_BUDGET} (remaining $${wf.remaining})`;
  }
  // Downgrade: the worst-case charge (with markup), the figure the reserve stage will hold.
  const room = state.budgetRoom;
  if (room && !fits(needs, (t) => worstCharge(m, t, needs.ask, servedByok(deps.projectProviders, state.auth.project.id, state.auth.key.byok, m)) <= room.remaining)) {
    return `${OVER_PROJECT_BUDGET} (${room.period}, remaining ${formatUsd(room.remaining)})`;
  }
  const cap = needs.maxCost;
  // The worst case (n choices, each at max_tokens or the model's maximum output), not the
  // expected output: meter clamps what an upstream reports to this same bound.
  // The same estimate as trace.expected's (routing/cost.ts estimateCost): the byte bound of the
  // input first, the exact count when the bound alone would not fit.
  if (cap !== undefined) {
    const { worst } = estimateCost(m, needs.inputTokens, needs.ask, needs.outputBound, cap);
    if (worst > cap) return `could cost up to $${worst} > max_cost $${cap}`;
  }
  return null;
}

