// What the webhook flow tests share: a gw on a ManualClock that may send to loopback, a scripted
// receiver on the same clock, endpoints made through the admin API, and a look at the queue.
import { ManualClock } from "../../../src/lib/clock.ts";
import { admin, ok } from "../../helpers/admin-api.ts";
import { startTestGw, type TestGw } from "../../helpers/test-gw.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver.ts";

export interface WebhookGw {
  gw: TestGw;
  clock: ManualClock;
  receivers: WebhookReceiver[];
  receiver(): WebhookReceiver;
  /** An endpoint of the test project made through the admin API; its one-time secret included. */
  endpoint(r: WebhookReceiver, body?: Record<string, unknown>): Promise<{ id: string; secret: string }>;
  emit(key: string, type?: "credits.low" | "invoice.created"): string;
  queued(endpointId: string): Array<{ event_id: string; attempt: number; next_attempt_at: number }>;
  stop(): Promise<void>;
}

export async function startWebhookGw(): Promise<WebhookGw> {
  const clock = new ManualClock();
  const gw = await startTestGw({ GW_WEBHOOK_ALLOW_LOOPBACK: "1" }, { clock });
  const receivers: WebhookReceiver[] = [];
  const queuedQuery = gw.deps.db.query<{ event_id: string; attempt: number; next_attempt_at: number }, [string]>(
    "SELECT event_id, attempt, next_attempt_at FROM webhook_queue WHERE endpoint_id = ? ORDER BY next_attempt_at",
  );
  return {
    gw,
    clock,
    receivers,
    receiver() {
      const r = startWebhookReceiver({ now: () => clock.now() });
      receivers.push(r);
      return r;
    },
    async endpoint(r, body = {}) {
      const created = await ok(await admin(gw, "POST", `/projects/${gw.projectId}/webhooks`, { url: r.url, ...body }), 201);
      return { id: String(created.id), secret: String(created.secret) };
    },
    emit(key, type = "credits.low") {
      const event = gw.deps.events.emit({ projectId: gw.projectId, type, key, data: { balance: 1.5, key } });
      if (!event) throw new Error(`event ${key} not stored`);
      return event.id;
    },
    queued: (endpointId) => queuedQuery.all(endpointId),
    async stop() {
      await gw.stop();
      for (const r of receivers) await r.stop();
    },
  };
}
