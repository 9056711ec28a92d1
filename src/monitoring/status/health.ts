// From a component's recent health to a Statuspage component status, and from the worst component
// to the page indicator (docs/monitoring.md "Status page"). Pure: the caller passes the counts.

export type ComponentStatus =
  | "operational"
  | "degraded_performance"
  | "partial_outage"
  | "major_outage"
  | "under_maintenance";
export type Indicator = "none" | "minor" | "major" | "critical";

export const HEALTH = {
  /** Fewer requests than this in the recent window say nothing: the component shows operational. */
  minRequests: 20,
  /** Availability at or above each bound keeps the status; below the last one is a major outage. */
  operational: 0.99,
  degraded: 0.95,
  partial: 0.5,
  /** p95 latency above this multiple of the component's own baseline is degraded performance. */
  latencyFactor: 2,
} as const;

/** A component's traffic over the recent window (caller-side errors already left out). */
export interface RecentHealth {
  requests: number;
  /** Requests that succeeded; availability is ok / requests. */
  ok: number;
  latencyP95Ms: number | null;
  /** The component's usual p95 (e.g. its 7-day p95); null when unknown, then latency is not judged. */
  baselineP95Ms: number | null;
}

/** The status an availability share maps to; also colours the daily bars. */
export function statusForAvailability(availability: number): ComponentStatus {
  if (availability >= HEALTH.operational) return "operational";
  if (availability >= HEALTH.degraded) return "degraded_performance";
  if (availability >= HEALTH.partial) return "partial_outage";
  return "major_outage";
}

export function componentStatus(health: RecentHealth, inMaintenance: boolean): ComponentStatus {
  if (inMaintenance) return "under_maintenance";
  if (health.requests < HEALTH.minRequests) return "operational";
  const byAvailability = statusForAvailability(health.ok / health.requests);
  if (byAvailability !== "operational") return byAvailability;
  const { latencyP95Ms: p95, baselineP95Ms: base } = health;
  if (p95 !== null && base !== null && base > 0 && p95 > base * HEALTH.latencyFactor) return "degraded_performance";
  return "operational";
}

const RANK: Record<Indicator, number> = { none: 0, minor: 1, major: 2, critical: 3 };
const FROM_COMPONENT: Record<ComponentStatus, Indicator> = {
  operational: "none",
  under_maintenance: "none",
  degraded_performance: "minor",
  partial_outage: "major",
  major_outage: "critical",
};
const DESCRIPTION: Record<Indicator, string> = {
  none: "All Systems Operational",
  minor: "Minor Service Outage",
  major: "Partial System Outage",
  critical: "Major System Outage",
};

export function worstIndicator(a: Indicator, b: Indicator): Indicator {
  return RANK[b] > RANK[a] ? b : a;
}

/** The page indicator: the worst component's, raised by any unresolved incident's impact. */
export function pageStatus(
  components: readonly ComponentStatus[],
  openImpacts: readonly Indicator[],
): { indicator: Indicator; description: string } {
  let indicator: Indicator = "none";
  for (const c of components) indicator = worstIndicator(indicator, FROM_COMPONENT[c]);
  for (const i of openImpacts) indicator = worstIndicator(indicator, i);
  const description = indicator === "none" && components.includes("under_maintenance")
    ? "Service Under Maintenance"
    : DESCRIPTION[indicator];
  return { indicator, description };
}
