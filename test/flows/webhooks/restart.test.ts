// The queue is durable (docs/webhooks.md "Retries"): a gw stopped with a delivery due later, and a
// new gw on the same data dir delivers it, signed with the sealed secret it reopens. Neither gw's
// log carries the secret. Also measured: emit to received on the wall clock, for an idle gw.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../../src/admin/projects.ts";
import { loadConfig } from "../../../src/config/env.ts";
import { buildDeps } from "../../../src/deps.ts";
import { type Clock, ManualClock } from "../../../src/lib/clock.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import type { Deps } from "../../../src/pipeline/deps.ts";
import { startServer } from "../../../src/server.ts";
import { admin, ok } from "../../helpers/admin-api.ts";
import { ADMIN_TOKEN, type TestGw } from "../../helpers/test-gw.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver.ts";

const dirs: string[] = [];
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A gw over `dataDir` that keeps it on stop, logging at debug into `lines`. */
function startGw(dataDir: string, clock: Clock, lines: string[]): { gw: Pick<TestGw, "url">; deps: Deps; stop(): Promise<void> } {
  const config = loadConfig({ port: "0", data: dataDir }, { GW_ADMIN_TOKEN: ADMIN_TOKEN, GW_STORAGE_RESERVE_MB: "1", GW_WEBHOOK_ALLOW_LOOPBACK: "1" });
  const deps = buildDeps(config, { logger: createLogger("debug", { write: (line: string) => void lines.push(line) }), clock });
  const server = startServer(config, { deps, quiet: true });
  return { gw: { url: server.url }, deps, stop: () => server.stop() };
}

describe("webhook queue across a restart", () => {
  test("a delivery due after the stop is made by the next gw on the same data dir", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gw-webhooks-"));
    dirs.push(dataDir);
    const clock = new ManualClock();
    const lines: string[] = [];
    const r = startWebhookReceiver({ now: () => clock.now() });
    receivers.push(r);
    r.reply({ status: 503 });

    const first = startGw(dataDir, clock, lines);
    const projectId = createProject(first.deps.repos.projects, { name: "durable" }).id;
    const created = await ok(await admin(first.gw as TestGw, "POST", `/projects/${projectId}/webhooks`, { url: r.url }), 201);
    const secret = String(created.secret);
    const event = first.deps.events.emit({ projectId, type: "credits.low", key: "low-1", data: { balance: 0.5 } });
    await first.deps.webhooks.runDue();
    expect(r.received).toHaveLength(1);
    await first.stop();

    clock.advance(6_000); // past the 5 s retry (and its jitter)
    const second = startGw(dataDir, clock, lines);
    try {
      const [, redelivered] = await r.waitFor(2);
      expect(redelivered?.headers["webhook-id"]).toBe(event?.id ?? "");
      expect(r.verify(secret, redelivered)).toEqual(JSON.parse(r.received[0]?.body ?? "null"));
      await second.deps.webhooks.runDue();
      const page = await second.deps.webhooks.deliveries(String(created.id), {});
      expect(page.data.map((d) => [d.attempt, d.status_code])).toEqual([[2, 200], [1, 503]]);
    } finally {
      await second.stop();
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join("\n")).not.toContain(secret);
    expect(lines.join("\n")).not.toContain(secret.slice(6));
  });

  test("an event emitted on an idle gw reaches a loopback receiver within milliseconds (measured)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gw-webhooks-"));
    dirs.push(dataDir);
    const lines: string[] = [];
    const r = startWebhookReceiver({ now: () => Date.now() });
    receivers.push(r);
    const gw = startGw(dataDir, { now: () => Date.now() }, lines);
    try {
      const projectId = createProject(gw.deps.repos.projects, { name: "fast" }).id;
      await ok(await admin(gw.gw as TestGw, "POST", `/projects/${projectId}/webhooks`, { url: r.url }), 201);
      const took: number[] = [];
      for (let i = 0; i < 30; i++) {
        const started = Date.now(); // the receiver stamps arrivals with Date.now() too
        gw.deps.events.emit({ projectId, type: "credits.added", key: `added-${i}`, data: { amount: 1 } });
        await r.waitFor(i + 1);
        took.push((r.received[i]?.time ?? Infinity) - started);
      }
      took.sort((a, b) => a - b);
      const median = took[15] ?? 0;
      console.log(`webhook emit -> received: median ${median} ms, max ${took.at(-1) ?? 0} ms over 30`);
      expect(median).toBeLessThan(250); // far below the 1 s timer: the emit wakes the dispatcher
    } finally {
      await gw.stop();
    }
  });
});
