// Built-in rules per enabled provider (docs/monitoring.md "Incidents"): availability and p95 latency
// against the provider's own 7-day baseline, from the status rollups. Their incidents have no project
// (the status page shows them) and send no webhook. State lives in memory, rebuilt from open incidents;
// with several instances the leader's pass loads and saves it (docs/scale-out.md).
import { percentile } from "../../lib/histogram.ts";
import { sortableId } from "../../lib/ids.ts";
import type { StatusTotals } from "../../store/repos/status-rollups.ts";
import type { IncidentsStore } from "../../store/repos/incidents.ts";
import type { AlertPassStores } from "./alert-rules.ts";
import { ALERT_WINDOWS, type AlertSeverity, type AlertWindow, type RuleCheck } from "./rule.ts";
import { windowRange } from "./scoped-totals.ts";
import { initialAlertState, step, type AlertSample, type AlertState } from "./state-machine.ts";

const BASELINE_MS = 7 * 86_400_000;
/** The baseline changes slowly: read at most this often per provider. */
const BASELINE_TTL_MS = 600_000;

interface BuiltInRule {
  key: "availability" | "latency";
  name: string;
  metric: "availability" | "latency_p95";
  severity: AlertSeverity;
  window: AlertWindow;
  check: Omit<RuleCheck, "threshold">;
}

export const BUILT_IN_RULES: readonly BuiltInRule[] = [
  { key: "availability", name: "availability", metric: "availability", severity: "critical", window: "5m", check: { op: "lt", min_requests: 20, for_ms: 0, keep_firing_for_ms: 0 } },
  { key: "latency", name: "latency", metric: "latency_p95", severity: "warning", window: "5m", check: { op: "gt", min_requests: 20, for_ms: 600_000, keep_firing_for_ms: 0 } },
];
const AVAILABILITY_BELOW = 95;
const LATENCY_TIMES_BASELINE = 2;

export class BuiltInRules {
  private states = new Map<string, AlertState>();
  private baselines = new Map<string, { at: number; p95: number | null }>();

  constructor(
    private readonly totals: (component: string, from: number, to: number) => Promise<StatusTotals>,
    private readonly providers: () => string[],
  ) {}

  /** One pass at `now` over every enabled provider, writing incidents through `stores`. */
  readonly evaluate = async (now: number, stores: Pick<AlertPassStores, "incidents" | "builtInStates">): Promise<void> => {
    const saved = stores.builtInStates;
    // Another instance may have led since: its states are the ones to go on from.
    if (saved) this.states = new Map([...(await saved.load())].map(([id, json]) => [id, JSON.parse(json) as AlertState]));
    for (const provider of this.providers()) {
      const component = `provider:${provider}`;
      const { from, to } = windowRange(now, ALERT_WINDOWS["5m"]);
      const t = await this.totals(component, from, to);
      for (const rule of BUILT_IN_RULES) {
        const threshold = rule.key === "availability" ? AVAILABILITY_BELOW : await this.baseline(component, from, now);
        if (threshold === null) continue;
        const value = t.requests === 0 ? null : rule.key === "availability" ? Math.round((t.ok / t.requests) * 100_000) / 1000 : percentile(t.latency, 95);
        await this.step(stores.incidents, provider, rule, { ...rule.check, threshold }, { value, requests: t.requests }, now);
      }
    }
    if (saved) await saved.save(new Map([...this.states].map(([id, state]) => [id, JSON.stringify(state)])), now);
  };

  /** Twice the provider's p95 over the 7 days before the window (`before`), null without one. */
  private async baseline(component: string, before: number, now: number): Promise<number | null> {
    let b = this.baselines.get(component);
    if (!b || now - b.at >= BASELINE_TTL_MS) {
      const t = await this.totals(component, before - BASELINE_MS, before);
      this.baselines.set(component, (b = { at: now, p95: t.requests === 0 ? null : percentile(t.latency, 95) }));
    }
    return b.p95 === null ? null : b.p95 * LATENCY_TIMES_BASELINE;
  }

  private async step(incidents: IncidentsStore, provider: string, rule: BuiltInRule, check: RuleCheck, sample: AlertSample, now: number): Promise<void> {
    const ruleId = `builtin:provider-${provider}:${rule.key}`;
    const { state, transition } = step(await this.stateOf(incidents, ruleId), sample, check, now);
    this.states.set(ruleId, state);
    const values = { peak: state.peak_value, last: state.last_value };
    if (transition === "opened") {
      await incidents.open({
        id: `inc_${sortableId(now)}`, projectId: null, ruleId, ruleName: `${provider} ${rule.name}`, component: `provider-${provider}`,
        severity: rule.severity, metric: rule.metric, threshold: check.threshold, window: rule.window, openedAt: now,
        peakValue: values.peak, lastValue: values.last,
      });
    } else if (transition === "resolved") {
      await incidents.resolve(ruleId, now, values);
    } else if (state.status === "firing" || state.status === "recovering") {
      await incidents.setValues(ruleId, values);
    }
  }

  /** After a restart a provider with an open incident is still firing. */
  private async stateOf(incidents: IncidentsStore, ruleId: string): Promise<AlertState> {
    const known = this.states.get(ruleId);
    if (known) return known;
    const open = await incidents.openOf(ruleId);
    if (!open) return initialAlertState();
    return { status: "firing", breach_since: open.openedAt, opened_at: open.openedAt, cleared_at: null, peak_value: open.peakValue, last_value: open.lastValue };
  }
}
