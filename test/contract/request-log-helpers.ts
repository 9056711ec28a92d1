// Shared by the request-log contract tests (docs/api.md "Request log", "Request detail"): sending chat requests,
// reading the log, and the field-by-field check of a log entry.
import { expect } from "bun:test";
import { get, post, type TestGw } from "../helpers/test-gw.ts";

export type Json = Record<string, unknown>;
export interface ListBody {
  object: string;
  data: Json[];
  has_more: boolean;
  last_id: string | null;
}

export const ask = (content: string) => ({ messages: [{ role: "user", content }] });

/** POSTs a chat request and returns its status and request id; a stream is read to the end. */
export async function chat(gw: TestGw, key: string, body: Json, headers: Record<string, string> = {}) {
  const res = await post(`${gw.url}/chat/completions`, key, body, headers);
  await res.text();
  const id = res.headers.get("x-gw-request-id");
  if (!id) throw new Error("response without X-Gw-Request-Id");
  return { status: res.status, id };
}

export async function list(gw: TestGw, query = "", key = gw.testKey): Promise<ListBody> {
  const res = await get(`${gw.url}/requests${query}`, key);
  expect(res.status).toBe(200);
  return (await res.json()) as ListBody;
}

export const ids = (body: ListBody) => body.data.map((e) => e.request_id);

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
export const isInt = (v: unknown) => typeof v === "number" && Number.isInteger(v);
const isNum = (v: unknown) => typeof v === "number" && Number.isFinite(v);
export const isStr = (v: unknown) => typeof v === "string" && v.length > 0;
const nullOr = (check: (v: unknown) => boolean) => (v: unknown) => v === null || check(v);

/** docs/api.md "Request log", field by field. Model and provider are null on a request that never reached one. */
const ENTRY_FIELDS: Record<string, (v: unknown) => boolean> = {
  request_id: (v) => typeof v === "string" && /^req_[0-9a-z]+$/.test(v),
  trace_id: isStr,
  created_at: (v) => typeof v === "string" && ISO_WITH_OFFSET.test(v) && !Number.isNaN(Date.parse(v)),
  requested_model: isStr,
  selected_model: nullOr(isStr),
  provider: nullOr(isStr),
  task: isStr,
  task_subtype: isStr,
  input_tokens: (v) => isInt(v) && (v as number) >= 0,
  output_tokens: (v) => isInt(v) && (v as number) >= 0,
  cost: (v) => isNum(v) && (v as number) >= 0,
  saved: isNum,
  cache: (v) => v === null || v === "exact" || v === "semantic",
  status: (v) => isInt(v) && (v as number) >= 100 && (v as number) <= 599,
  error: () => true, // nullable; checked against status below
  error_category: nullOr(isStr),
  latency_ms: (v) => isInt(v) && (v as number) >= 0,
  ttft_ms: nullOr((v) => isInt(v) && (v as number) >= 0),
  fallbacks: (v) => isInt(v) && (v as number) >= 0,
  workflow_id: nullOr(isStr),
  step: nullOr(isStr),
  tags: (v) => Array.isArray(v) && v.every((t) => typeof t === "string"),
};

export function expectLogEntry(e: Json): void {
  for (const [field, check] of Object.entries(ENTRY_FIELDS)) {
    expect(e).toHaveProperty(field);
    if (!check(e[field])) throw new Error(`field ${field} has a wrong type or value: ${JSON.stringify(e[field])}`);
  }
  // A failed request has an error and its category; a stream that fails after it started keeps 200.
  if ((e.status as number) >= 400) expect(e.error).not.toBeNull();
  expect(e.error === null).toBe(e.error_category === null);
  if (e.error === null) {
    expect(e.status).toBe(200);
    expect(isStr(e.selected_model)).toBe(true);
    expect(isStr(e.provider)).toBe(true);
  }
}
