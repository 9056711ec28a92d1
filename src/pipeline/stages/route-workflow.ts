// Multi-instance workflow budgets (docs/routing.md "Workflow budgets", docs/scale-out.md): once
// routed, the first attempt's worst case is held in Redis against every instance's reservations;
// with no room left there the request is routed again on what is left, then refused as single-node.
import { GwError } from "../../errors/gw-error.ts";
import { outputAskOf, worstCostOf } from "../../routing/cost.ts";
import type { Deps } from "../deps.ts";
import type { RequestState } from "../state.ts";

/** Routings tried before a workflow whose room other instances keep taking answers 402. */
const TRIES = 3;

/** `reroute` routes again (state.workflowBudget then reads the room the refusal reported). */
export function holdWorkflowBudget(deps: Deps, state: RequestState, reroute: () => void, tries = 1): Promise<void> | undefined {
  const wf = state.workflowBudget;
  const model = state.ranked[0];
  if (!wf || !state.workflowId || !model) return undefined;
  const amount = worstCostOf(model, state.inputTokens, outputAskOf(state.request ?? {}));
  return deps.workflowBudgets.hold(state.auth.project.id, state.workflowId, wf.budget, amount).then((held) => {
    if (held === null) return;
    if (held !== "refused") return void (wf.reservation = held);
    if (tries >= TRIES) {
      throw new GwError("budget_exceeded", `The workflow's remaining budget ($${wf.remaining}) is held by its other steps in flight; retry once they finish.`);
    }
    state.candidates = [];
    state.ranked = [];
    state.moreCandidates = undefined;
    reroute();
    return holdWorkflowBudget(deps, state, reroute, tries + 1);
  });
}
