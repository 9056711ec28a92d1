// One health key's passive circuit breaker (issue 5 item 6): EWMA error rate and latency,
// consecutive failures, and the closed -> open -> half_open machine, driven only by the caller's
// clock (no timers). ProviderHealth (health.ts) decides which keys an outcome touches.

export type CircuitState = "closed" | "open" | "half_open";

export interface BreakerConfig {
  /** EWMA weight of the newest sample, 0 < alpha <= 1. */
  alpha: number;
  openAfterFailures: number;
  openErrorRate: number;
  minSamples: number;
  cooldownMs: number;
  maxCooldownMs: number;
  halfOpenProbes: number;
}

/** What admission would do for this key right now (check() has no side effects). */
export const ADMIT = 0;
export const PROBE = 1;
export const REJECT = 2;
export type Admission = typeof ADMIT | typeof PROBE | typeof REJECT;

export interface Rejection { ok: false; reason: string }

export class CircuitBreaker {
  /** Stored state; an `open` whose cooldown has run out reads as half_open (stateAt). */
  state: CircuitState = "closed";
  errorRate = 0;
  latencyMs: number | null = null;
  /** Counted outcomes since the circuit last closed. */
  samples = 0;
  consecutiveFailures = 0;
  openedAt: number | null = null;
  /** The current cooldown: the configured one, doubled on each failed probe up to the cap. */
  cooldownMs: number;
  probesInFlight = 0;
  /** What the latest counted failure was (gw's own words, e.g. "openai rejected gw's credentials
   * (HTTP 401)"), so an open circuit's answer leads to the cause (docs/routing.md "Provider health"). */
  lastFailure: string | null = null;
  /** When the latest probe was admitted: a probe never reported frees its slot after a cooldown. */
  private probeAdmittedAt = 0;
  private openRejection: Rejection | null = null;
  private busyRejection: Rejection | null = null;

  constructor(readonly key: string, private readonly cfg: BreakerConfig) {
    this.cooldownMs = cfg.cooldownMs;
  }

  stateAt(now: number): CircuitState {
    if (this.state === "open" && now - (this.openedAt ?? now) >= this.cooldownMs) return "half_open";
    return this.state;
  }

  check(now: number): Admission {
    const state = this.stateAt(now);
    if (state === "closed") return ADMIT;
    if (state === "open") return REJECT;
    if (this.state === "open") return PROBE; // first admit after the cooldown
    return this.freeProbeSlots(now) > 0 ? PROBE : REJECT;
  }

  /** Called only after check() said PROBE for this key (and no other key rejected). */
  startProbe(now: number): void {
    if (this.state === "open" || this.freeProbeSlots(now) === this.cfg.halfOpenProbes) this.probesInFlight = 0;
    this.state = "half_open";
    this.probesInFlight++;
    this.probeAdmittedAt = now;
  }

  rejection(now: number): Rejection {
    if (this.stateAt(now) === "open") {
      this.openRejection ??= { ok: false, reason: `${this.key}: circuit open${this.lastFailure ? `, last failure: ${this.lastFailure}` : ""}` };
      return this.openRejection;
    }
    this.busyRejection ??= { ok: false, reason: `${this.key}: circuit half-open, probe in flight` };
    return this.busyRejection;
  }

  success(latencyMs: number, probe: boolean): void {
    if (latencyMs >= 0) {
      this.latencyMs = this.latencyMs === null ? latencyMs : this.latencyMs + this.cfg.alpha * (latencyMs - this.latencyMs);
    }
    if (this.state === "closed") {
      this.errorRate -= this.cfg.alpha * this.errorRate;
      this.samples++;
      this.consecutiveFailures = 0;
      return;
    }
    if (!this.isProbeReport(probe)) return;
    this.state = "closed";
    this.errorRate = 0;
    this.samples = 0;
    this.consecutiveFailures = 0;
    this.openedAt = null;
    this.cooldownMs = this.cfg.cooldownMs;
    this.probesInFlight = 0;
  }

  failure(now: number, probe: boolean, cause?: string): void {
    if (cause && cause !== this.lastFailure) {
      this.lastFailure = cause;
      this.openRejection = null;
    }
    if (this.state === "closed") {
      this.errorRate += this.cfg.alpha * (1 - this.errorRate);
      this.samples++;
      this.consecutiveFailures++;
      const tripped = this.consecutiveFailures >= this.cfg.openAfterFailures
        || (this.samples >= this.cfg.minSamples && this.errorRate >= this.cfg.openErrorRate);
      if (tripped) this.open(now);
      return;
    }
    if (!this.isProbeReport(probe)) return;
    this.consecutiveFailures++;
    this.cooldownMs = Math.min(this.cooldownMs * 2, Math.max(this.cfg.maxCooldownMs, this.cfg.cooldownMs));
    this.open(now);
  }

  /** An outcome that says nothing about the provider: it only gives a probe slot back. */
  neutral(probe: boolean): void {
    if (this.isProbeReport(probe)) this.probesInFlight--;
  }

  private isProbeReport(probe: boolean): boolean {
    return probe && this.state === "half_open" && this.probesInFlight > 0;
  }

  private freeProbeSlots(now: number): number {
    if (now - this.probeAdmittedAt >= this.cooldownMs) return this.cfg.halfOpenProbes;
    return this.cfg.halfOpenProbes - this.probesInFlight;
  }

  private open(now: number): void {
    this.state = "open";
    this.openedAt = now;
    this.probesInFlight = 0;
  }
}
