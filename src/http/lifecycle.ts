// The server's own state as load balancers see it (docs/availability.md "Shutdown"): draining
// after a stop signal, storage that cannot record requests, and the requests in flight that a
// stop waits for and, past its grace, aborts. GET /healthz and /readyz read it.
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

  /** Why gw should not get new requests now; empty when it is ready. */
  notReadyReasons(): string[] {
    const reasons: string[] = [];
    if (this.draining) reasons.push("shutting down");
    if (this.storage && !this.storage.healthy) reasons.push(`storage: ${this.storage.reason ?? "cannot write"}`);
    return reasons;
  }
}
