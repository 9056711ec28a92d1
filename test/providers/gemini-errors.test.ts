// The Gemini adapter's error mapping: HTTP status + Google error body -> failure class.
import { describe, expect, test } from "bun:test";
import { parseError, readGoogleError } from "../../src/providers/google/errors.ts";
import { API_KEY_INVALID, API_KEY_MISSING, defaultErrorBody, googleError } from "../helpers/scripted-gemini-bodies.ts";

const none = new Headers();
const map = (status: number, body = defaultErrorBody(status), headers = none) => parseError(status, body, headers, "google");

describe("parseError", () => {
  test("429 RESOURCE_EXHAUSTED -> rate_limit; Retry-After wins over RetryInfo", () => {
    const f = map(429);
    expect([f.failureClass, f.upstreamStatus, f.retryAfter, f.canFallback]).toEqual(["rate_limit", 429, 7, true]);
    expect(map(429, defaultErrorBody(429), new Headers({ "retry-after": "3" })).retryAfter).toBe(3);
    expect(f.toGwError().code).toBe("rate_limited");
  });

  test("credentials: 401, 403 PERMISSION_DENIED, and 400 INVALID_ARGUMENT with reason API_KEY_INVALID", () => {
    expect(map(401).failureClass).toBe("credential");
    expect(map(403, API_KEY_MISSING).failureClass).toBe("credential");
    const bad = map(400, API_KEY_INVALID);
    expect([bad.failureClass, bad.upstreamStatus, bad.detail]).toEqual(["credential", 400, undefined]);
    expect(bad.toGwError().code).toBe("upstream_error");
  });

  test("404 -> model_gone; 500 -> transient upstream_error; 503 -> transient; 504 -> timeout", () => {
    expect(map(404).failureClass).toBe("model_gone");
    const internal = map(500);
    expect([internal.failureClass, internal.toGwError().code]).toEqual(["transient", "upstream_error"]);
    const unavailable = map(503, defaultErrorBody(503), new Headers({ "retry-after": "2" }));
    expect([unavailable.failureClass, unavailable.retryAfter, unavailable.toGwError().code]).toEqual(["transient", 2, "provider_unavailable"]);
    expect(map(504).failureClass).toBe("timeout");
  });

  test("400 INVALID_ARGUMENT -> caller with the upstream's message as detail; token limits -> context_length", () => {
    const caller = map(400, googleError(400, "* GenerateContentRequest.contents: contents is not specified\n"));
    expect([caller.failureClass, caller.canFallback]).toEqual(["caller", false]);
    expect(caller.detail).toContain("contents is not specified");
    expect(caller.message).not.toContain("contents is not specified"); // the logged message stays generic
    const long = map(400, googleError(400, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."));
    expect([long.failureClass, long.toGwError().code]).toEqual(["context_length", "invalid_request"]);
  });

  test("400 FAILED_PRECONDITION (account not served) falls back like a credential problem", () => {
    const body = JSON.stringify({ error: { code: 400, message: "User location is not supported for the API use.", status: "FAILED_PRECONDITION" } });
    expect(map(400, body).failureClass).toBe("credential");
  });

  test("a body that is not Google's JSON still maps by status", () => {
    expect(map(502, "<html>Bad Gateway</html>").toGwError().code).toBe("upstream_error");
    expect(readGoogleError("[" + googleError(429) + "]").status).toBe("RESOURCE_EXHAUSTED");
  });
});
