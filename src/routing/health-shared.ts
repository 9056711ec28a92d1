// Provider health in the multi-instance mode (docs/scale-out.md "Redis"): each instance keeps its own
// breakers; one that opens a circuit of the operator's credentials raises a shared flag until its
// cooldown ends, and every instance reads the raised flags about once a second, off the request path.
import type { CircuitFlag } from "../store/circuit-flags.ts";
import type { RedisCircuitFlags } from "../store/redis/circuit-flags.ts";
import { OutageLatch } from "../store/redis/redis-call.ts";
import { modelKey, ProviderHealth, type Admit, type HealthOptions, type HealthOutcome } from "./health.ts";

export interface SharedHealthOptions extends HealthOptions {
  /** Every circuit key worth reading: the providers and "provider/model" of the catalog. */
  keys: () => readonly string[];
  /** Between reads of the raised flags (default 1 s). */
  pollMs?: number;
  /** Redis lost (once), a flag not raised or lowered. */
  onError: (err: unknown, context: string) => void;
}

export class SharedProviderHealth extends ProviderHealth {
  /** Flags raised anywhere, as last read (this instance's own included). */
  private raised = new Map<string, CircuitFlag>();
  /** Circuits this instance flagged, lowered when one of its probes succeeds. */
  private readonly mine = new Set<string>();
  private flagChanges = 0;
  private readonly outage = new OutageLatch();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly clock: () => number;

  constructor(private readonly flags: RedisCircuitFlags, private readonly shared: SharedHealthOptions) {
    super(shared);
    this.clock = shared.now ?? Date.now;
  }

  /** Reads the flags now and then on the interval (unref'd: it never holds the process up). */
  start(): Promise<void> {
    if (this.timer === null) {
      this.timer = setInterval(() => void this.poll(), this.shared.pollMs ?? 1_000);
      this.timer.unref();
    }
    return this.poll();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  async poll(): Promise<void> {
    try {
      const raised = await this.flags.raised(this.shared.keys(), this.clock());
      this.outage.ok();
      if (!sameFlags(raised, this.raised)) this.flagChanges++;
      this.raised = raised;
    } catch (err) {
      // Redis down: each instance's own breakers decide; the flags read last expire by their end.
      if (this.outage.fail()) this.shared.onError(err, "Redis unavailable: circuits are this instance's own until it answers");
    }
  }

  override admit(provider: string, model: string, credential?: string | null): Admit {
    if (!credential && this.raised.size > 0) {
      const flag = this.flagOf(provider, model);
      if (flag) return { ok: false, reason: flag.reason };
    }
    return super.admit(provider, model, credential);
  }

  override score(provider: string, model: string, credential?: string | null): number {
    if (!credential && this.raised.size > 0 && this.flagOf(provider, model)) return 0;
    return super.score(provider, model, credential);
  }

  override epoch(): number {
    return super.epoch() + this.flagChanges;
  }

  override scoreEpoch(): number {
    return super.scoreEpoch() + this.flagChanges;
  }

  override record(provider: string, model: string, outcome: HealthOutcome, probe = false, credential?: string | null): void {
    super.record(provider, model, outcome, probe, credential);
    if (credential) return;
    if (outcome.ok) {
      if (this.mine.size > 0) this.lower(provider, modelKey(provider, model));
      return;
    }
    const now = this.clock();
    for (const open of this.openCircuits(provider, model)) {
      this.mine.add(open.key);
      const flag = { until: open.until, reason: open.reason };
      this.flags.open(open.key, flag, now).catch((err: unknown) => this.failed(err));
    }
  }

  private lower(...keys: string[]): void {
    for (const key of keys) {
      if (!this.mine.delete(key)) continue;
      if (this.raised.delete(key)) this.flagChanges++;
      this.flags.close(key).catch((err: unknown) => this.failed(err));
    }
  }

  private flagOf(provider: string, model: string): CircuitFlag | undefined {
    const now = this.clock();
    for (const key of [provider, modelKey(provider, model)]) {
      const flag = this.raised.get(key);
      if (flag && flag.until > now) return flag;
    }
    return undefined;
  }

  private failed(err: unknown): void {
    if (this.outage.fail()) this.shared.onError(err, "Redis unavailable: circuits are this instance's own until it answers");
  }
}

function sameFlags(a: ReadonlyMap<string, CircuitFlag>, b: ReadonlyMap<string, CircuitFlag>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, flag] of a) if (b.get(key)?.until !== flag.until) return false;
  return true;
}
