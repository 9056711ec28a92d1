// POST /requests/{request_id}/feedback (docs/api.md "Feedback", "Errors"): the feedback object,
// 422 {message, errors} for bad input, 404 and project isolation, the chat scope.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { feedbackCalls } from "../helpers/feedback.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off" });
});
afterAll(() => gw.stop());

const { served, rate } = feedbackCalls(() => gw);

describe('the feedback object (docs/api.md "Feedback")', () => {
  test("a rating sent right after the answer (its log row may still be queued) answers the feedback object", async () => {
    const id = await served();
    const res = await rate(id, { rating: 4 });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gw-request-id")).toStartWith("req_");
    expect(await res.json()).toEqual({ object: "feedback", request_id: id, rating: 4 });
    expect(gw.deps.repos.feedback.get(gw.projectId, id)).toBe(4);
  });
});

describe('bad input answers 422 {message, errors} (docs/api.md "Errors")', () => {
  const cases: Array<[string, string | Record<string, unknown>, string]> = [
    ["missing", {}, "rating"], ["0", { rating: 0 }, "rating"], ["6", { rating: 6 }, "rating"],
    ["2.5", { rating: 2.5 }, "rating"], ['"5"', { rating: "5" }, "rating"], ["null", { rating: null }, "rating"],
    ["not JSON", "{rating: 5", "body"], ["an array", "[5]", "body"], ["a number", "5", "body"], ["empty", "", "body"],
  ];
  for (const [name, body, field] of cases) {
    test(`rating ${name}`, async () => {
      const id = await served();
      const res = await rate(id, body);
      expect(res.status).toBe(422);
      const answer = (await res.json()) as { message: string; errors: Record<string, string[]> };
      expect(Object.keys(answer).sort()).toEqual(["errors", "message"]);
      expect(answer.message.length).toBeGreaterThan(0);
      expect(Object.keys(answer.errors)).toEqual([field]);
      expect(answer.errors[field]![0]!.length).toBeGreaterThan(0);
      expect(gw.deps.repos.feedback.get(gw.projectId, id)).toBeNull();
    });
  }
});

describe('404, isolation and scope (docs/api.md "Authentication")', () => {
  const expectError = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { code: string; type: string; request_id: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.request_id).toStartWith("req_");
  };

  test("an unknown id answers 404 not_found", async () => {
    await expectError(await rate("req_0000000000000000000000", { rating: 3 }), 404, "not_found");
    await expectError(await rate("nonsense", { rating: 3 }), 404, "not_found");
  });

  test("a key of another project gets 404 for the id, and the rating is not stored", async () => {
    const id = await served();
    const other = gw.key({ projectId: gw.newProject("feedback-other") });
    await expectError(await rate(id, { rating: 1 }, other), 404, "not_found");
    expect(gw.deps.repos.feedback.get(gw.projectId, id)).toBeNull();
  });

  test("scope chat: a key without it answers 403 permission_denied; no key 401", async () => {
    const id = await served();
    await expectError(await rate(id, { rating: 5 }, gw.key({ scopes: ["requests", "models"] })), 403, "permission_denied");
    await expectError(await rate(id, { rating: 5 }, null), 401, "invalid_api_key");
    expect((await rate(id, { rating: 5 }, gw.key({ scopes: ["chat"] }))).status).toBe(200);
  });
});
