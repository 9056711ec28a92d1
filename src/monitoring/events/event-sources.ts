// deps.eventSources: the event families billing, admin and security code raise (docs/webhooks.md
// "Event types"). The request path only counts in memory; a timer sends ended windows and invoices.
import type { ApiKey } from "../../store/repos/api-keys.ts";
import type { Clock } from "../../lib/clock.ts";
import type { EmitEvent, EmitInput } from "../webhooks/emitter.ts";
import { BillingEvents } from "./billing-events.ts";
import { InvoiceEvents, type InvoiceSources } from "./invoice-events.ts";
import { SecurityEvents } from "./security-events.ts";
import type { SharedSecurityWindows } from "./security-shared.ts";

/** How often ended 5-minute windows and a closed month are looked for. */
const TICK_MS = 15_000;

export class EventSources {
  readonly billing: BillingEvents;
  readonly security: SecurityEvents;
  readonly invoices: InvoiceEvents;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly emit: EmitEvent,
    private readonly clock: Clock,
    invoices: InvoiceSources,
    private readonly onError: (err: unknown) => void,
    onUnattributedSpike?: (failures: number, windowStartIso: string) => void,
    /** Multi-instance: security windows summed on Redis, sent by the leader. */
    private readonly sharedSecurity?: SharedSecurityWindows,
  ) {
    this.billing = new BillingEvents(emit);
    this.security = new SecurityEvents(emit, clock, onUnattributedSpike, undefined, sharedSecurity);
    this.invoices = new InvoiceEvents(emit, invoices);
  }

  /** security.key_created: the key's description, never its secret. */
  keyCreated(key: ApiKey): void {
    this.emit(keyEvent("security.key_created", key));
  }

  keyRevoked(key: ApiKey): void {
    this.emit(keyEvent("security.key_revoked", key));
  }

  /** One pass at clock.now(): ended security windows, then last month's invoices; returns the
   * number of events sent. */
  runDue(): number {
    const now = this.clock.now();
    let sent = 0;
    try {
      sent += this.security.flush(now);
      sent += this.invoices.check(now);
    } catch (err) {
      this.onError(err);
    }
    return sent;
  }

  /** A month that closed while gw was stopped is sent at once. */
  start(): void {
    if (this.timer) return;
    this.runDue();
    this.timer = setInterval(() => this.runDue(), TICK_MS);
    this.timer.unref?.();
  }

  /** Windows still open are sent as they stand: a stop must not lose counted requests. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.security.flush(Number.MAX_SAFE_INTEGER);
    await this.sharedSecurity?.idle();
  }
}

/** A key's event: its description, never its secret. Also raised by the offline CLI. */
export const keyEvent = (type: "security.key_created" | "security.key_revoked", key: ApiKey): EmitInput =>
  ({ projectId: key.projectId, type, key: key.id, data: { key_id: key.id, name: key.name, mode: key.mode, scopes: key.scopes } });
