// trace.reasons (docs/observability.md "Trace storage"): the request path records notes and the
// sentences are made when a trace is read; served traces and 503 messages read exactly as when the
// route stage wrote the sentences itself (the snapshots below were taken from that code).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateProject } from "../../src/admin/projects.ts";
import { decodeTrace } from "../../src/store/trace-codec.ts";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { weatherTool } from "../fixtures/tools.ts";

let gw: TestGw;
let key: string;
beforeAll(async () => {
  gw = await startTestGw();
  const project = gw.newProject("reasons");
  updateProject(gw.deps.repos.projects, project, { policy: { allowed_providers: ["anthropic", "google", "openai"], blocked_providers: ["google"] } }, []);
  key = gw.key({ projectId: project, scopes: ["chat", "requests"] });
});
afterAll(() => gw.stop());

interface Detail { trace: { reasons: string[]; candidates: Array<{ excluded?: string }> } }
const detail = async (id: string): Promise<Detail> => {
  await gw.drain();
  return (await (await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Detail;
};
const chat = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const res = await post(`${gw.url}/chat/completions`, key, body, { "x-gw-cache": "off", ...headers });
  return { status: res.status, body: (await res.json()) as { model: string; gw: { request_id: string }; error?: { message: string } }, id: res.headers.get("x-gw-request-id") };
};

describe("served trace.reasons", () => {
  test("a request with exclusions of several kinds: required quality, weights, exclusions by count", async () => {
    const { status, body } = await chat({ messages: [{ role: "user", content: "What is the weather in Oslo?" }], tools: [weatherTool], max_cost: 0.01 });
    expect(status).toBe(200);
    const { trace } = await detail(body.gw.request_id);
    expect(trace.reasons).toEqual(SNAPSHOT_EXCLUSIONS);
  });

  test("a sticky session's turn says which model it kept", async () => {
    const first = await chat({ messages: [{ role: "user", content: "hi there!" }] }, { "x-gw-session": "reasons-1" });
    const second = await chat({ messages: [{ role: "user", content: "and hello again" }] }, { "x-gw-session": "reasons-1" });
    expect(second.body.model).toBe(first.body.model);
    const { trace } = await detail(second.body.gw.request_id);
    expect(trace.reasons).toEqual(SNAPSHOT_SESSION);
  });

  test("no model left: the 503 message lists the top exclusions, and the error trace keeps them all", async () => {
    const { status, body, id } = await chat({ messages: [{ role: "user", content: "What is the weather in Oslo?" }], tools: [weatherTool], max_cost: 0.0000001 });
    expect(status).toBe(503);
    expect(body.error?.message).toBe(SNAPSHOT_503);
    const { trace } = await detail(id!);
    expect(trace.reasons).toEqual(SNAPSHOT_503_REASONS);
  });
});

describe("stored traces of the earlier format", () => {
  test("format 1 stored the sentences: they read back as stored", () => {
    const reasons = ["required quality 0.6 for chat (gw-auto, low complexity)", "3 excluded: provider not enabled"];
    const stored = { "~": 1, c: [["a/x", 0, null, null, null, 0, "provider a not enabled"]], rs: reasons };
    expect(decodeTrace(stored)?.reasons).toEqual(reasons);
  });
});

const SNAPSHOT_EXCLUSIONS = [
  "required quality 0.6 for agent (gw-auto, low complexity)",
  "weights from the reasoning workload: quality 0.55, cost 0.3, latency 0.15",
  "19 excluded: provider not in the project's allowed_providers",
  "13 excluded: could cost up to $… > max_cost $…",
  "4 excluded: provider blocked by the project's policy",
];
const SNAPSHOT_SESSION = [
  "required quality 0.6 for chat (gw-auto, low complexity)",
  "weights from the realtime workload: quality 0.25, cost 0.35, latency 0.4",
  "19 excluded: provider not in the project's allowed_providers",
  "4 excluded: provider blocked by the project's policy",
  // The session's first turn picks among gw-auto's equivalent models by the session id (docs/routing.md "Score").
  "session kept on openai/gpt-4o-mini",
];
const SNAPSHOT_503 = "No model can serve this request (19 excluded: provider not in the project's allowed_providers; " +
  "14 excluded: could cost up to $… > max_cost $…; 4 excluded: provider blocked by the project's policy); the trace lists every model and why.";
const SNAPSHOT_503_REASONS = [
  "required quality 0.6 for agent (gw-auto, low complexity)",
  "weights from the reasoning workload: quality 0.55, cost 0.3, latency 0.15",
  "19 excluded: provider not in the project's allowed_providers",
  "14 excluded: could cost up to $… > max_cost $…",
  "4 excluded: provider blocked by the project's policy",
];
