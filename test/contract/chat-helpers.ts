// Shared helpers of the POST /chat/completions contract tests: calling the endpoint, reading an
// SSE body line by line, checking the error envelope (docs/api.md "Errors") and reading the request log.
import { expect } from "bun:test";
import { post, type TestGw } from "../helpers/test-gw.ts";

export type Json = Record<string, unknown>;

export const user = (content: string) => [{ role: "user", content }];

/** POST /chat/completions with the given key (the file's test key by default). */
export function chat(gw: TestGw, body: unknown, headers: Record<string, string> = {}, key: string | null = gw.testKey) {
  return post(`${gw.url}/chat/completions`, key, body, headers);
}

export async function json(res: Response): Promise<Json> {
  return (await res.json()) as Json;
}

export interface SseBody {
  /** Every `data:` payload in order, `[DONE]` included. */
  data: string[];
  /** Lines that were neither `data:` lines nor blank (there should be none). */
  other: string[];
}

/** Reads a whole SSE body; fails rather than hangs if the stream never ends. */
export async function readSse(res: Response): Promise<SseBody> {
  const text = await res.text();
  const data: string[] = [];
  const other: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("data: ")) data.push(line.slice(6));
    else if (line.trim() !== "") other.push(line);
  }
  return { data, other };
}

/** The JSON payloads before `[DONE]`; asserts `[DONE]` is the last line and appears once. */
export function framesOf(sse: SseBody): Json[] {
  expect(sse.other).toEqual([]);
  expect(sse.data.at(-1)).toBe("[DONE]");
  expect(sse.data.filter((d) => d === "[DONE]")).toHaveLength(1);
  return sse.data.slice(0, -1).map((d) => JSON.parse(d) as Json);
}

/** Asserts the error envelope of docs/api.md "Errors" and returns its `error` member. */
export async function expectError(
  res: Response,
  status: number,
  code: string,
  extra: { type?: string; category?: string; param?: string | null } = {},
): Promise<Json> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status} ${code}, got ${res.status}: ${text}`);
  const body = JSON.parse(text) as { error?: Json };
  expect(Object.keys(body)).toEqual(["error"]);
  const err = body.error!;
  expect(Object.keys(err).sort()).toEqual(["category", "code", "message", "param", "request_id", "type"]);
  expect(err.code).toBe(code);
  expect(typeof err.message).toBe("string");
  expect((err.message as string).length).toBeGreaterThan(0);
  expect(err.request_id).toMatch(/^req_/);
  expect(res.headers.get("x-gw-request-id")).toBe(err.request_id as string);
  expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
  if (extra.type !== undefined) expect(err.type).toBe(extra.type);
  if (extra.category !== undefined) expect(err.category).toBe(extra.category);
  if (extra.param !== undefined) expect(err.param).toBe(extra.param);
  return err;
}

/** GET /requests/{id} after draining the log queue. */
export async function requestDetail(gw: TestGw, requestId: string, key = gw.testKey): Promise<Json> {
  await gw.drain();
  const res = await fetch(`${gw.url}/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return json(res);
}

export interface TraceSpan {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  status: string;
  error_code: string | null;
  attributes?: Json;
}

export interface TraceAttempt {
  model: string;
  provider: string;
  status: string;
  error_code: string | null;
}

export const spansOf = (detail: Json) => (detail.trace as { spans: TraceSpan[] }).spans;
export const attemptsOf = (detail: Json) => (detail.trace as { attempts: TraceAttempt[] }).attempts;
