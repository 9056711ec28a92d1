// Issue 15 item 8 (docs/security.md "Admin"): OTLP trace ids are derived with the project, so two
// tenants sending the same X-Gw-Trace-Id never share a trace in the operator's backend, while one
// project's requests under one id still do. Through a real gw and a scripted collector.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { attr, startOtlpReceiver, type OtlpReceiver } from "../observability/otlp-receiver.ts";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let collector: OtlpReceiver;
let gw: TestGw;
beforeAll(async () => {
  collector = startOtlpReceiver();
  gw = await startTestGw({ GW_OTLP_ENDPOINT: collector.url, GW_OTLP_INTERVAL_MS: "20" });
});
afterAll(async () => {
  await gw.stop();
  await collector.stop();
});

async function send(key: string, traceId: string): Promise<string> {
  const res = await post(`${gw.url}/chat/completions`, key, { messages: [{ role: "user", content: "trace me" }] }, { "x-gw-trace-id": traceId, "x-gw-cache": "off" });
  expect(res.status).toBe(200);
  return res.headers.get("x-gw-request-id")!;
}

test("the same X-Gw-Trace-Id in two projects gives two OTLP traces; within a project, one", async () => {
  const otherKey = gw.key({ projectId: gw.newProject("tenant b"), scopes: ["chat"] });
  const ids = {
    a1: await send(gw.testKey, "shared-run-1"),
    a2: await send(gw.testKey, "shared-run-1"),
    b: await send(otherKey, "shared-run-1"),
    aW3c: await send(gw.testKey, "4bf92f3577b34da6a3ce929d0e0e4736"),
    bW3c: await send(otherKey, "4bf92f3577b34da6a3ce929d0e0e4736"),
  };
  await gw.drain();
  await gw.deps.otlp!.flush();
  const traceOf = (requestId: string): string => {
    const root = collector.spans().find((s) => s.name === "request" && attr(s.attributes, "gw.request_id") === requestId);
    if (!root) throw new Error(`no exported root span for ${requestId}`);
    return root.traceId;
  };
  expect(traceOf(ids.a1)).toBe(traceOf(ids.a2));
  expect(traceOf(ids.a1)).not.toBe(traceOf(ids.b));
  expect(traceOf(ids.aW3c)).not.toBe(traceOf(ids.bW3c));
  expect(traceOf(ids.bW3c)).not.toBe("4bf92f3577b34da6a3ce929d0e0e4736");
});
