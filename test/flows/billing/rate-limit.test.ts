// Rate limits through a real server (issue 9 item 5, docs/rate-limits.md): 429 rate_limited with
// Retry-After and x-ratelimit-* headers, per project and per key, test and live pools, embeddings,
// streams, and the refusal in the request log and trace (docs/rate-limits.md "What the caller sees").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";
import { requestDetail } from "../../helpers/flow-helpers.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

const admin = (method: string, path: string, body: unknown) =>
  fetch(`${gw.url}/admin${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });

/** A fresh project with this policy, so each test counts from a full allowance. */
async function projectWith(rateLimits: Record<string, unknown>): Promise<string> {
  const project = gw.newProject("limited");
  const res = await admin("PATCH", `/projects/${project}`, { policy: { rate_limits: rateLimits } });
  expect(res.status).toBe(200);
  return project;
}
const keyOf = (projectId: string, mode: "live" | "test" = "test") => gw.key({ projectId, mode, scopes: ["chat", "embeddings", "requests"] });
const chat = (key: string, extra: Record<string, unknown> = {}) =>
  post(`${gw.url}/chat/completions`, key, { messages: [{ role: "user", content: "hello there" }], ...extra });
const limitHeaders = (res: Response) => Object.fromEntries([...res.headers].filter(([name]) => name.startsWith("x-ratelimit-")));

describe("issue 9.5: requests per minute", () => {
  test("successes count the remaining requests down; past the limit 429 rate_limited with Retry-After", async () => {
    const key = keyOf(await projectWith({ rpm: 3 }));
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await chat(key);
      expect(res.status).toBe(200);
      remaining.push(res.headers.get("x-ratelimit-remaining-requests")!);
      expect(res.headers.get("x-ratelimit-limit-requests")).toBe("3");
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    const seconds = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(seconds) && seconds >= 19 && seconds <= 20).toBe(true);
    expect(limitHeaders(refused)).toMatchObject({ "x-ratelimit-limit-requests": "3", "x-ratelimit-remaining-requests": "0" });
    expect(refused.headers.get("x-ratelimit-reset-requests")).toMatch(/^(\d+m)?\d+(\.\d+)?s$/);
    expect(refused.headers.get("x-gw-request-id")).toMatch(/^req_/);
    const { error } = (await refused.json()) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ code: "rate_limited", type: "rate_limit_error", category: "RATE_LIMIT", param: null });
    expect(String(error.message)).toContain("3 requests per minute");
  });

  test("a refused request is logged and traced: status 429, the rate_limit span carries the code", async () => {
    const key = keyOf(await projectWith({ rpm: 1 }));
    const ok = await chat(key);
    const refused = await chat(key);
    await gw.drain();
    const { body } = await requestDetail(gw.url, key, refused.headers.get("x-gw-request-id")!);
    expect(body.status).toBe(429);
    expect(body.error_category).toBe("RATE_LIMIT");
    expect(body.trace.spans.map((s) => s.name)).toEqual(["request", "authentication", "parse", "guard", "analysis", "rate_limit"]);
    expect(body.trace.spans.at(-1)!.error_code).toBe("rate_limited");
    const served = await requestDetail(gw.url, key, ok.headers.get("x-gw-request-id")!);
    expect(served.body.trace.spans.find((s) => s.name === "rate_limit")?.status).toBe("ok");
  });

  test("a project without rate_limits: no headers and no rate_limit span", async () => {
    const res = await chat(gw.testKey);
    expect(limitHeaders(res)).toEqual({});
    await gw.drain();
    const { body } = await requestDetail(gw.url, gw.testKey, res.headers.get("x-gw-request-id")!);
    expect(body.trace.spans.map((s) => s.name)).not.toContain("rate_limit");
  });

  test("streams carry the headers too", async () => {
    const key = keyOf(await projectWith({ rpm: 5 }));
    const res = await chat(key, { stream: true });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("4");
    await res.text();
  });
});

describe("issue 9.5: per project and per key", () => {
  test("two keys share the project's limit", async () => {
    const project = await projectWith({ rpm: 3 });
    const [a, b] = [keyOf(project), keyOf(project)];
    expect((await chat(a)).status).toBe(200);
    expect((await chat(a)).status).toBe(200);
    expect((await chat(b)).status).toBe(200);
    const refused = await chat(b);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("project limit");
  });

  test("a key's own limit (per_key) does not touch another key's; the project limit still binds all", async () => {
    const project = await projectWith({ rpm: 4, per_key: { rpm: 2 } });
    const [a, b, c] = [keyOf(project), keyOf(project), keyOf(project)];
    expect((await chat(a)).status).toBe(200);
    const last = await chat(a);
    expect(last.headers.get("x-ratelimit-limit-requests")).toBe("2"); // the key binds harder than the project
    const refused = await chat(a);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("rate_limits.per_key.rpm");
    expect((await chat(b)).status).toBe(200);
    expect((await chat(b)).status).toBe(200);
    const project429 = await chat(c);
    expect(project429.status).toBe(429);
    expect(((await project429.json()) as { error: { message: string } }).error.message).toContain("project limit");
  });

  test("test keys are limited like live keys, in an allowance of their own", async () => {
    const project = await projectWith({ rpm: 1 });
    const [test1, live] = [keyOf(project, "test"), keyOf(project, "live")];
    expect((await chat(test1)).status).toBe(200);
    expect((await chat(test1)).status).toBe(429);
    // The live key is admitted (then fails on routing, no provider here) and shows its headers.
    const first = await chat(live, { model: "gpt-4o-mini" });
    expect(first.status).not.toBe(429);
    expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect((await chat(live, { model: "gpt-4o-mini" })).status).toBe(429);
  });
});

describe("issue 9.5: embeddings", () => {
  test("limited by the same policy, with the same headers and 429", async () => {
    const key = keyOf(await projectWith({ rpm: 2, tpm: 10_000 }));
    const embed = () => post(`${gw.url}/embeddings`, key, { input: ["one text", "another"] });
    const first = await embed();
    expect(first.status).toBe(200);
    expect(limitHeaders(first)).toMatchObject({ "x-ratelimit-remaining-requests": "1", "x-ratelimit-limit-tokens": "10000" });
    expect((await embed()).status).toBe(200);
    const refused = await embed();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("30");
  });
});

describe('policy rate_limits (docs/rate-limits.md "Settings")', () => {
  test("the admin API refuses limits that are not positive integers, and unknown fields", async () => {
    const project = gw.newProject("bad-limits");
    for (const bad of [{ rpm: 0 }, { tpm: 1.5 }, { per_key: { rpm: -1 } }, { per_key: { burst: 3 } }, { rps: 3 }]) {
      const res = await admin("PATCH", `/projects/${project}`, { policy: { rate_limits: bad } });
      expect(res.status).toBe(400);
    }
    const ok = await admin("PATCH", `/projects/${project}`, { policy: { rate_limits: { rpm: 60, tpm: 90_000, per_key: { rpm: 10 } } } });
    expect(((await ok.json()) as { policy: Record<string, unknown> }).policy.rate_limits).toEqual({ rpm: 60, tpm: 90_000, per_key: { rpm: 10 } });
    const key = keyOf(project);
    expect((await chat(key)).headers.get("x-ratelimit-limit-requests")).toBe("10");
    // null unsets the setting: the limits and their headers are gone at once.
    expect((await admin("PATCH", `/projects/${project}`, { policy: { rate_limits: null } })).status).toBe(200);
    expect(limitHeaders(await chat(key))).toEqual({});
  });
});
