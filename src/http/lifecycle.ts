// The server's own state as load balancers see it (docs/availability.md "Readiness"): start-up work
// under way, draining after a stop signal, storage that cannot record requests, no provider able to
// answer, and the requests in flight that a stop waits for and, past its grace, aborts.
import type { InFlightRequests } from "../pipeline/in-flight.ts";


/** What the storage says of itself (the log and ledger writers; docs/availability.md "Storage"). */
export interface StorageState {
  readonly healthy: boolean;
  readonly reason?: string | null;
}

const NOTHING_IN_FLIGHT: InFlightRequests = { abortAll: () => 0, idle: () => Promise.resolve(), size: 0 };

export class Lifecycle {
  draining = false;
  /** Requests received so far (the idle collector looks for a pause). */
  requests = 0;
  storage: StorageState | undefined = undefined;
  inFlight: InFlightRequests = NOTHING_IN_FLIGHT;
  /** Why no request could be answered (no provider, no test key), or null; read only while no
   * other reason holds, since it reads the store. Unset: not checked. */
  providers: (() => string | null) | undefined = undefined;
  /** Start-up work under way, by the reason /readyz gives for it, in the order it began. */
  private readonly pending = new Map<string, number>();

  /** /readyz names `reason` until `work` settles (either way: a start-up step that failed has
   * said so in the log, and what it left behind answers without it). */
  until(reason: string, work: Promise<unknown>): void {
    this.pending.set(reason, (this.pending.get(reason) ?? 0) + 1);
    const done = () => {
      const left = (this.pending.get(reason) ?? 1) - 1;
      if (left > 0) this.pending.set(reason, left);
      else this.pending.delete(reason);
    };
    work.then(done, done);
  }

  /** Why gw should not get new requests now; empty when it is ready. */
  notReadyReasons(): string[] {
    const reasons: string[] = [...this.pending.keys()];
    if (this.draining) reasons.push("shutting down");
    if (this.storage && !this.storage.healthy) reasons.push(`storage: ${this.storage.reason ?? "cannot write"}`);
    if (reasons.length > 0 || !this.providers) return reasons;
    try {
      const none = this.providers();
      return none ? [none] : reasons;
    } catch (err) {
      return [`storage: ${err instanceof Error ? err.message : String(err)}`];
    }
  }
}
