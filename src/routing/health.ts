// Passive provider health (docs/routing.md "Provider health"): attempt outcomes feed one circuit per
// provider and per provider/model, and separate bounded ones per project credential; routing asks
// admit/score/expectedLatencyMs. Pure and in-memory; time is `now()`.
import { ADMIT, CircuitBreaker, PROBE, REJECT } from "./circuit-breaker.ts";
import type { Admission, BreakerConfig, CircuitState } from "./circuit-breaker.ts";

export type { CircuitState } from "./circuit-breaker.ts";

export interface HealthOptions {
  /** EWMA weight of the newest sample (alpha), 0 < halfLife <= 1; default 0.2. */
  halfLife?: number;
  /** Consecutive counted failures that open a closed key; default 5. */
  openAfterFailures?: number;
  /** EWMA error rate that opens a key once it has minSamples; default 0.5. */
  openErrorRate?: number;
  minSamples?: number;
  /** open -> half-open; default 30_000. */
  cooldownMs?: number;
  /** Cap for the cooldown doubled by failed probes; default 300_000. */
  maxCooldownMs?: number;
  /** Concurrent probes allowed while half-open; default 1. */
  halfOpenProbes?: number;
  /** Most keys (providers + models) kept; default 10_000. */
  maxKeys?: number;
  now?: () => number;
}

export interface HealthSnapshot {
  /** "provider" or "provider/model" */
  key: string;
  state: CircuitState;
  errorRate: number;
  /** EWMA of successful attempts. */
  latencyMs: number | null;
  samples: number;
  consecutiveFailures: number;
  openedAt: number | null;
}

/** `cause`: gw's own words for a failure, kept as the circuit's last failure (never the caller's content). */
export type HealthOutcome = { ok: true; latencyMs: number } | { ok: false; failureClass: string; cause?: string };
export type Admit = { ok: true; probe: boolean } | { ok: false; reason: string };

const NONE = 0;
const MODEL_ONLY = 1;
const BOTH = 2;

function blameOf(failureClass: string): number {
  switch (failureClass) {
    case "rate_limit": case "transient": case "timeout": case "credential": return BOTH;
    case "model_gone": return MODEL_ONLY;
    default: return NONE;
  }
}

const ADMITTED: Admit = Object.freeze({ ok: true, probe: false });
const ADMITTED_PROBE: Admit = Object.freeze({ ok: true, probe: true });

/** A provider+model's circuit key ("provider/model"), as snapshot() and the shared flags name it. */
export function modelKey(provider: string, model: string): string {
  const prefixed = model.length > provider.length && model.charCodeAt(provider.length) === 47 && model.startsWith(provider);
  return prefixed ? model : `${provider}/${model}`;
}

/** A tenant credential's provider key; its model keys become "<credential>|provider/provider/model". */
const tenantKey = (credential: string, provider: string): string => `${credential}|${provider}`;

function keyHealth(breaker: CircuitBreaker | undefined, now: number): number {
  if (!breaker) return 1;
  const state = breaker.stateAt(now);
  if (state === "open") return 0;
  const health = 1 - breaker.errorRate;
  return state === "half_open" ? health / 2 : health;
}

function positive(name: string, value: number, integer: boolean): number {
  if (!(value > 0) || (integer && !Number.isInteger(value))) throw new RangeError(`health: ${name} must be a positive ${integer ? "integer" : "number"}`);
  return value;
}

export class ProviderHealth {
  private readonly cfg: BreakerConfig;
  private readonly maxKeys: number;
  private readonly now: () => number;
  private readonly providers = new Map<string, CircuitBreaker>();
  private readonly models = new Map<string, CircuitBreaker>();
  private readonly options: HealthOptions;
  /** Breakers of tenants' own credentials, made on the first BYOK outcome (never in snapshot()). */
  private tenants: ProviderHealth | null = null;
  /** Counts changes that may move a score() or expectedLatencyMs() answer (epoch()). */
  private changes = 0;
  /** Counts the changes among them that may move a score() answer (scoreEpoch()). */
  private scoreChanges = 0;
  /** When the earliest open circuit turns half-open by time alone (no outcome recorded). */
  private turnsAt = Infinity;
  /** The breakers one record() failed, looked at for their turn once it is done. */
  private readonly watched: CircuitBreaker[] = [];

  constructor(options: HealthOptions = {}) {
    this.options = options;
    const alpha = positive("halfLife", options.halfLife ?? 0.2, false);
    if (alpha > 1) throw new RangeError("health: halfLife is the EWMA weight of the newest sample, at most 1");
    const openErrorRate = positive("openErrorRate", options.openErrorRate ?? 0.5, false);
    const cooldownMs = options.cooldownMs ?? 30_000;
    if (!(cooldownMs >= 0)) throw new RangeError("health: cooldownMs must be >= 0");
    this.cfg = {
      alpha,
      openAfterFailures: positive("openAfterFailures", options.openAfterFailures ?? 5, true),
      openErrorRate,
      minSamples: positive("minSamples", options.minSamples ?? 10, true),
      cooldownMs,
      maxCooldownMs: options.maxCooldownMs ?? 300_000,
      halfOpenProbes: positive("halfOpenProbes", options.halfOpenProbes ?? 1, true),
    };
    this.maxKeys = positive("maxKeys", options.maxKeys ?? 10_000, true);
    this.now = options.now ?? Date.now;
  }

  /** May an attempt go to this provider+model now? `probe: true` must be passed back to record(). */
  admit(provider: string, model: string, credential?: string | null): Admit {
    if (credential) return this.tenants?.admit(tenantKey(credential, provider), modelKey(provider, model)) ?? ADMITTED;
    const now = this.now();
    const p = this.providers.get(provider);
    const pa: Admission = p ? p.check(now) : ADMIT;
    if (pa === REJECT) return p!.rejection(now);
    const m = this.models.get(modelKey(provider, model));
    const ma: Admission = m ? m.check(now) : ADMIT;
    if (ma === REJECT) return m!.rejection(now);
    // Both keys agreed before any probe slot is taken, so a rejection never leaks a slot.
    if (pa === PROBE) p!.startProbe(now);
    if (ma === PROBE) m!.startProbe(now);
    if (pa === PROBE || ma === PROBE) this.changed();
    return pa === PROBE || ma === PROBE ? ADMITTED_PROBE : ADMITTED;
  }

  record(provider: string, model: string, outcome: HealthOutcome, probe = false, credential?: string | null): void {
    this.changes++;
    // A success moves a score only where it lowers an error rate or closes a circuit.
    if (!outcome.ok) this.scoreChanges++;
    if (credential) {
      this.tenants ??= new ProviderHealth(this.options);
      return this.tenants.record(tenantKey(credential, provider), modelKey(provider, model), outcome, probe);
    }
    const key = modelKey(provider, model);
    if (outcome.ok) {
      this.succeeded(this.breaker(this.providers, provider), outcome.latencyMs, probe);
      this.succeeded(this.breaker(this.models, key), outcome.latencyMs, probe);
      return;
    }
    const blame = blameOf(outcome.failureClass);
    const now = this.now();
    if (blame === BOTH) this.watch(this.breaker(this.providers, provider)).failure(now, probe, outcome.cause);
    else this.providers.get(provider)?.neutral(probe);
    if (blame === NONE) this.models.get(key)?.neutral(probe);
    else this.watch(this.breaker(this.models, key)).failure(now, probe, outcome.cause);
    this.watchTurns();
  }

  /** Changes whenever a score() or expectedLatencyMs() answer may have: any recorded outcome, a
   * probe admitted, or an open circuit's cooldown run out. Memoised routing keys on it (route-memo.ts). */
  epoch(): number {
    this.checkTurn();
    return this.changes + (this.tenants?.epoch() ?? 0);
  }

  /** Changes whenever a score() answer may have (not on latency alone). */
  scoreEpoch(): number {
    this.checkTurn();
    return this.scoreChanges + (this.tenants?.scoreEpoch() ?? 0);
  }

  private changed(): void {
    this.changes++;
    this.scoreChanges++;
  }

  private checkTurn(): void {
    if (this.turnsAt === Infinity || this.now() < this.turnsAt) return;
    this.changed();
    this.turnsAt = Infinity;
    // Any other circuit still open turns later: found again by a scan (rare: only after a turn).
    this.noteTurns(this.providers.values());
    this.noteTurns(this.models.values());
  }

  private succeeded(b: CircuitBreaker, latencyMs: number, probe: boolean): void {
    if (b.state !== "closed" || b.errorRate !== 0) this.scoreChanges++;
    b.success(latencyMs, probe);
  }

  private watch(b: CircuitBreaker): CircuitBreaker {
    this.watched.push(b);
    return b;
  }

  /** Notes when the circuits just failed turn half-open by time alone. */
  private watchTurns(): void {
    if (this.watched.length === 0) return;
    this.noteTurns(this.watched);
    this.watched.length = 0;
  }

  /** A millisecond early, so that a turn is never missed (an early one only costs a memo miss). */
  private noteTurns(breakers: Iterable<CircuitBreaker>): void {
    const now = this.now();
    for (const b of breakers) {
      if (b.state === "open" && b.stateAt(now) === "open") this.turnsAt = Math.min(this.turnsAt, (b.openedAt ?? now) + b.cooldownMs - 1);
    }
  }

  /** The operator-credential circuits of this provider and provider+model open now: each key, the
   * end of its cooldown and its refusal (multi-instance: raised as shared flags, routing/health-shared.ts). */
  openCircuits(provider: string, model: string): Array<{ key: string; until: number; reason: string }> {
    const now = this.now();
    const out: Array<{ key: string; until: number; reason: string }> = [];
    for (const b of [this.providers.get(provider), this.models.get(modelKey(provider, model))]) {
      if (b && b.stateAt(now) === "open") out.push({ key: b.key, until: (b.openedAt ?? now) + b.cooldownMs, reason: b.rejection(now).reason });
    }
    return out;
  }

  expectedLatencyMs(provider: string, model: string): number | null {
    return this.models.get(modelKey(provider, model))?.latencyMs ?? null;
  }

  score(provider: string, model: string, credential?: string | null): number {
    if (credential) return this.tenants?.score(tenantKey(credential, provider), modelKey(provider, model)) ?? 1;
    const now = this.now();
    return keyHealth(this.providers.get(provider), now) * keyHealth(this.models.get(modelKey(provider, model)), now);
  }

  /** Providers first, then models, each in first-seen order. */
  snapshot(): HealthSnapshot[] {
    const now = this.now();
    const out: HealthSnapshot[] = [];
    for (const map of [this.providers, this.models]) {
      for (const b of map.values()) {
        out.push({
          key: b.key, state: b.stateAt(now), errorRate: b.errorRate, latencyMs: b.latencyMs,
          samples: b.samples, consecutiveFailures: b.consecutiveFailures, openedAt: b.openedAt,
        });
      }
    }
    return out;
  }

  private breaker(map: Map<string, CircuitBreaker>, key: string): CircuitBreaker {
    const found = map.get(key);
    if (found) return found;
    if (this.providers.size + this.models.size >= this.maxKeys) this.evictOldest();
    const created = new CircuitBreaker(key, this.cfg);
    map.set(key, created);
    return created;
  }

  private evictOldest(): void {
    const map = this.models.size > 0 ? this.models : this.providers;
    this.changed();
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}
