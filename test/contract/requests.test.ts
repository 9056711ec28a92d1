// GET /requests (docs/api.md "Request log", "Limits"): the request log of the calling
// key's project, newest first, cursor-paginated and filterable. Detail and privacy: requests-detail.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { get, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { ask, chat, expectLogEntry, ids, isInt, list, type Json, type ListBody } from "./request-log-helpers.ts";

describe('GET /requests: entries and filters (docs/api.md "Request log")', () => {
  let gw: TestGw;
  // Sent in this order; the log lists them the other way round.
  const sent: Record<"tagged" | "limited" | "unknown" | "explicit" | "streamed", { status: number; id: string }> = {} as never;
  let before = 0;
  let after = 0;

  beforeAll(async () => {
    gw = await startTestGw();
    before = Date.now();
    sent.tagged = await chat(gw, gw.testKey, {
      ...ask("Say hello."), tags: ["alpha", "beta"], gw: { workflow_id: "wf-contract", step: "plan" },
    }, { "X-Gw-Trace-Id": "trace-contract-1" });
    sent.limited = await chat(gw, gw.testKey, {
      ...ask("Say hello."), model: "gw-test:rate_limited", gw: { workflow_id: "wf-contract", step: "act" },
    });
    sent.unknown = await chat(gw, gw.testKey, { ...ask("Say hello."), model: "nope/no-such-model" });
    sent.explicit = await chat(gw, gw.testKey, { ...ask("Say hello."), model: "anthropic/claude-haiku-4-5" }, {
      "X-Gw-Trace-Id": "trace-contract-1",
    });
    sent.streamed = await chat(gw, gw.testKey, { ...ask("Tell me a short story."), stream: true });
    after = Date.now();
    await gw.drain();
  });
  afterAll(() => gw.stop());

  test("the requests were served as expected", () => {
    expect([sent.tagged.status, sent.limited.status, sent.unknown.status, sent.explicit.status, sent.streamed.status])
      .toEqual([200, 429, 404, 200, 200]);
  });

  test("a list, newest first, with has_more and last_id", async () => {
    const body = await list(gw);
    expect(body.object).toBe("list");
    expect(ids(body)).toEqual([sent.streamed.id, sent.explicit.id, sent.unknown.id, sent.limited.id, sent.tagged.id]);
    expect(body.has_more).toBe(false);
    expect(body.last_id).toBe(sent.tagged.id);
    const times = body.data.map((e) => Date.parse(e.created_at as string));
    for (const t of times) expect(t).toBeGreaterThanOrEqual(before - 1000), expect(t).toBeLessThanOrEqual(after + 1000);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  test("every entry has every field of 2.1 with the right type", async () => {
    const body = await list(gw);
    expect(body.data.length).toBe(5);
    for (const entry of body.data) expectLogEntry(entry);
  });

  test("a successful entry records model, provider, tags, workflow and the caller's trace id", async () => {
    const e = (await list(gw)).data.find((x) => x.request_id === sent.tagged.id)!;
    expect(e).toMatchObject({
      trace_id: "trace-contract-1", requested_model: "gw-auto", provider: "sandbox", status: 200, error: null,
      error_category: null, cache: null, fallbacks: 0, workflow_id: "wf-contract", step: "plan", tags: ["alpha", "beta"],
    });
    expect(e.input_tokens as number).toBeGreaterThan(0);
    expect(e.output_tokens as number).toBeGreaterThan(0);
  });

  test("without X-Gw-Trace-Id a request gets its own trc_ id, and empty tags", async () => {
    const body = await list(gw);
    const limited = body.data.find((x) => x.request_id === sent.limited.id)!;
    const unknown = body.data.find((x) => x.request_id === sent.unknown.id)!;
    expect(limited.trace_id).toMatch(/^trc_[0-9a-z]+$/);
    expect(unknown.trace_id).toMatch(/^trc_[0-9a-z]+$/);
    expect(limited.trace_id).not.toBe(unknown.trace_id);
    expect(limited.tags).toEqual([]);
    expect(limited.workflow_id).toBe("wf-contract");
    expect(limited.step).toBe("act");
  });

  test("failed entries carry status, error and error_category", async () => {
    const body = await list(gw);
    const limited = body.data.find((x) => x.request_id === sent.limited.id)!;
    expect(limited).toMatchObject({ status: 429, error_category: "RATE_LIMIT", requested_model: "gw-test:rate_limited" });
    expect(JSON.stringify(limited.error)).toContain("rate_limited");
    const unknown = body.data.find((x) => x.request_id === sent.unknown.id)!;
    expect(unknown).toMatchObject({ status: 404, error_category: "MODEL_NOT_FOUND", requested_model: "nope/no-such-model", selected_model: null });
    expect(JSON.stringify(unknown.error)).toContain("model_not_found");
  });

  test("an explicit model is the selected model; a stream has a time to first token", async () => {
    const body = await list(gw);
    const explicit = body.data.find((x) => x.request_id === sent.explicit.id)!;
    expect(explicit).toMatchObject({ requested_model: "anthropic/claude-haiku-4-5", selected_model: "anthropic/claude-haiku-4-5" });
    const streamed = body.data.find((x) => x.request_id === sent.streamed.id)!;
    expect(streamed.status).toBe(200);
    expect(isInt(streamed.ttft_ms)).toBe(true);
    expect(streamed.output_tokens as number).toBeGreaterThan(0);
  });

  test("filter model: only requests answered by that model", async () => {
    expect(ids(await list(gw, "?model=anthropic/claude-haiku-4-5"))).toEqual([sent.explicit.id]);
    expect(ids(await list(gw, "?model=nope/no-such-model"))).toEqual([]);
  });

  test("filter status", async () => {
    expect(ids(await list(gw, "?status=429"))).toEqual([sent.limited.id]);
    expect(ids(await list(gw, "?status=404"))).toEqual([sent.unknown.id]);
    expect(ids(await list(gw, "?status=200"))).toEqual([sent.streamed.id, sent.explicit.id, sent.tagged.id]);
    expect(ids(await list(gw, "?status=500"))).toEqual([]);
  });

  test("filter workflow_id and trace_id, alone and combined", async () => {
    expect(ids(await list(gw, "?workflow_id=wf-contract"))).toEqual([sent.limited.id, sent.tagged.id]);
    expect(ids(await list(gw, "?workflow_id=wf-other"))).toEqual([]);
    expect(ids(await list(gw, "?trace_id=trace-contract-1"))).toEqual([sent.explicit.id, sent.tagged.id]);
    expect(ids(await list(gw, "?trace_id=trace-contract-1&status=200&model=anthropic/claude-haiku-4-5"))).toEqual([sent.explicit.id]);
    expect(ids(await list(gw, "?workflow_id=wf-contract&status=429"))).toEqual([sent.limited.id]);
  });

  test("limit out of 1..100 or not an integer: 400 invalid_request naming 'limit'", async () => {
    for (const bad of ["0", "101", "abc", "-1", "1.5", ""]) {
      const res = await get(`${gw.url}/requests?limit=${bad}`, gw.testKey);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: Json };
      expect(error).toMatchObject({ code: "invalid_request", param: "limit", type: "invalid_request_error" });
    }
    expect((await list(gw, "?limit=1")).data.length).toBe(1);
    expect((await list(gw, "?limit=100")).data.length).toBe(5);
  });

  test("a status filter that is not an HTTP status: 400 naming 'status'", async () => {
    for (const bad of ["abc", "20x", "99", "600"]) {
      const res = await get(`${gw.url}/requests?status=${bad}`, gw.testKey);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: Json };
      expect(error).toMatchObject({ code: "invalid_request", param: "status" });
    }
  });

  test('a key of another project sees none of these requests, and not their detail (docs/api.md "Authentication")', async () => {
    const otherKey = gw.key({ projectId: gw.newProject(), scopes: ["chat", "requests"] });
    const own = await chat(gw, otherKey, ask("Say hello."));
    await gw.drain();
    expect(ids(await list(gw, "", otherKey))).toEqual([own.id]);
    expect(ids(await list(gw, "?trace_id=trace-contract-1", otherKey))).toEqual([]);
    for (const id of [sent.tagged.id, sent.limited.id]) {
      const res = await get(`${gw.url}/requests/${id}`, otherKey);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: Json }).error.code).toBe("not_found");
    }
    // And the first project does not see the other project's request either.
    expect(ids(await list(gw))).not.toContain(own.id);
  });

  test('a key without the `requests` scope: 403 permission_denied on list and detail (docs/api.md "Authentication")', async () => {
    const defaultKey = gw.key();
    for (const path of ["/requests", `/requests/${sent.tagged.id}`]) {
      const res = await get(gw.url + path, defaultKey);
      expect(res.status).toBe(403);
      const { error } = (await res.json()) as { error: Json };
      expect(error).toMatchObject({ code: "permission_denied", type: "permission_error" });
    }
  });

  test("no key or a malformed key: 401 invalid_api_key", async () => {
    for (const key of [null, "gw_test_nope"]) {
      const res = await get(`${gw.url}/requests`, key);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: Json }).error.code).toBe("invalid_api_key");
    }
  });
});

describe('GET /requests: cursor pagination (docs/api.md "Request log", "Limits")', () => {
  let gw: TestGw;
  const sentIds: string[] = [];

  beforeAll(async () => {
    gw = await startTestGw();
    for (let i = 0; i < 25; i++) {
      const r = await chat(gw, gw.testKey, { ...ask(`Question number ${i}?`), tags: [`n${i}`] });
      expect(r.status).toBe(200);
      sentIds.push(r.id);
    }
    await gw.drain();
  });
  afterAll(() => gw.stop());

  test("limit + after walk every row once, newest first, without gaps", async () => {
    const pages: ListBody[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 10; guard++) {
      const page: ListBody = await list(gw, `?limit=7${cursor ? `&after=${cursor}` : ""}`);
      pages.push(page);
      if (!page.has_more) break;
      expect(page.last_id).toBe(page.data.at(-1)!.request_id as string);
      cursor = page.last_id;
    }
    expect(pages.map((p) => p.data.length)).toEqual([7, 7, 7, 4]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, true, false]);
    const walked = pages.flatMap(ids);
    expect(new Set(walked).size).toBe(25);
    expect(walked).toEqual([...sentIds].reverse());
    for (const p of pages) for (const e of p.data) expectLogEntry(e);
  });

  test("the default page size is 20", async () => {
    const page = await list(gw);
    expect(page.data.length).toBe(20);
    expect(page.has_more).toBe(true);
    expect(ids(page)).toEqual([...sentIds].reverse().slice(0, 20));
  });

  test("after the last row: an empty page without more", async () => {
    const page = await list(gw, `?after=${sentIds[0]}`);
    expect(page.data).toEqual([]);
    expect(page.has_more).toBe(false);
  });

  test("a cursor combines with filters", async () => {
    const first = await list(gw, "?limit=3&status=200");
    const second = await list(gw, `?limit=3&status=200&after=${first.last_id}`);
    expect([...ids(first), ...ids(second)]).toEqual([...sentIds].reverse().slice(0, 6));
  });

  test("a page that ends exactly at the last row has no more", async () => {
    const exact = await list(gw, "?limit=25");
    expect(exact.data).toHaveLength(25);
    expect(exact.has_more).toBe(false);
    const short = await list(gw, "?limit=24");
    expect(short.has_more).toBe(true);
    const tail = await list(gw, `?limit=5&after=${sentIds[5]}`);
    expect(ids(tail)).toEqual(sentIds.slice(0, 5).reverse());
    expect(tail.has_more).toBe(false);
  });

  test("limit=100 returns all 25 rows in one page", async () => {
    const page = await list(gw, "?limit=100");
    expect(ids(page)).toEqual([...sentIds].reverse());
    expect(page.has_more).toBe(false);
    expect(page.last_id).toBe(sentIds[0]!);
  });
});
