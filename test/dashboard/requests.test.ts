// The dashboard's request log API through app.handle with real sessions (docs/dashboard.md
// "Request log"): each filter narrows, cursor pages cover the rows once, exports match the filtered
// rows, the detail is GET /v1/requests/{id}'s body, another project's rows never appear, bad params answer 400.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp, type App } from "../../src/http/app.ts";
import { requestIdAt } from "../../src/lib/ids.ts";
import { prepareRow } from "../../src/store/log-batch-codec.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";
import { CSV_COLUMNS, csvCell, exportStream } from "../../src/dashboard/export.ts";
import { parseLogFilters, type LogFilters } from "../../src/schema/dashboard-requests.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let app: App;
let other: string;
let session: string;
let otherSession: string;
let operator: string;
const T0 = Date.UTC(2026, 9, 1);
const rows: RequestRecord[] = [];

function record(projectId: string, i: number, over: Partial<RequestRecord> = {}): RequestRecord {
  const createdAt = T0 + i * 60_000;
  return {
    id: `${requestIdAt(createdAt)}0000bbbb${String(i).padStart(4, "0")}`, projectId, keyId: null, traceId: `trc_t${i % 40}`, createdAt,
    endpoint: "chat.completions", requestedModel: "gw-auto", selectedModel: i % 5 === 0 ? "anthropic/claude-haiku-4-5" : "openai/gpt-4o-mini",
    provider: i % 5 === 0 ? "anthropic" : "openai", task: i % 3 === 0 ? "coding" : "chat", taskSubtype: null, inputTokens: 10, outputTokens: 5,
    cost: 0.001, saved: 0, cache: i % 6 === 0 ? "exact" : i % 13 === 0 ? "semantic" : null, status: i % 17 === 0 ? 429 : 200,
    errorCode: i % 17 === 0 ? "rate_limited" : null, errorMessage: i % 17 === 0 ? "slow down" : null,
    errorCategory: i % 17 === 0 ? "RATE_LIMIT" : null, latencyMs: 100, ttftMs: null, overheadMs: 1, fallbacks: 0,
    workflowId: i % 9 === 0 ? "wf_nine" : null, step: null, tags: i % 4 === 0 ? ["nightly", "eval"] : i % 4 === 1 ? ["nightly"] : [],
    stream: false, test: i % 8 === 0, trace: null, ...over,
  };
}

async function signIn(token: string): Promise<string> {
  const res = await app.handle(new Request("http://localhost/dashboard/api/session", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }),
  }));
  expect(res.status).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

const call = (path: string, cookie: string | null = session) =>
  app.handle(new Request(`http://localhost/dashboard/api${path}`, { headers: cookie ? { cookie } : {} }));

interface ListBody { object: string; data: { request_id: string; test: boolean }[]; has_more: boolean; next_cursor: string | null }

/** Every page of a query, following next_cursor. */
async function allIds(query: string, cookie = session): Promise<string[]> {
  const ids: string[] = [];
  let after = "";
  for (;;) {
    const res = await call(`/requests?limit=9&${query}${after}`, cookie);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ListBody;
    expect(body.object).toBe("list");
    ids.push(...body.data.map((e) => e.request_id));
    if (!body.has_more) return ids;
    after = `&after=${body.next_cursor}`;
  }
}

const expected = (keep: (r: RequestRecord) => boolean) => rows.filter(keep).map((r) => r.id).reverse();

beforeAll(async () => {
  gw = await startTestGw();
  app = createApp(gw.deps);
  other = gw.newProject();
  for (let i = 0; i < 120; i++) rows.push(record(gw.projectId, i, i === 7 ? { workflowId: "=HYPERLINK(\"x\")", step: "a, \"quoted\"\nline" } : {}));
  gw.deps.repos.requests.insertPrepared([...rows, ...Array.from({ length: 30 }, (_, i) => record(other, i + 500))].map(prepareRow));
  session = await signIn(gw.testKey);
  otherSession = await signIn(gw.key({ projectId: other, scopes: ["requests"] }));
  operator = await signIn(ADMIN_TOKEN);
});
afterAll(() => gw.stop());

describe("GET /dashboard/api/requests", () => {
  test("no filter: pages of the project's rows, newest first, never overlapping or skipping", async () => {
    expect(await allIds("")).toEqual(expected(() => true));
    const first = (await (await call("/requests")).json()) as ListBody;
    expect(first.data).toHaveLength(50);
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toBe(first.data[49]!.request_id);
  });

  test("each filter narrows to exactly its rows", async () => {
    const cases: [string, (r: RequestRecord) => boolean][] = [
      ["model=anthropic/claude-haiku-4-5", (r) => r.selectedModel === "anthropic/claude-haiku-4-5"],
      ["status=429", (r) => r.status === 429],
      ["status=200", (r) => r.status === 200],
      ["workflow_id=wf_nine", (r) => r.workflowId === "wf_nine"],
      ["trace_id=trc_t3", (r) => r.traceId === "trc_t3"],
      ["provider=anthropic", (r) => r.provider === "anthropic"],
      ["cache=exact", (r) => r.cache === "exact"],
      ["cache=semantic", (r) => r.cache === "semantic"],
      ["cache=miss", (r) => r.cache === null],
      ["error_category=RATE_LIMIT", (r) => r.errorCategory === "RATE_LIMIT"],
      ["tag=eval", (r) => r.tags.includes("eval")],
      ["tag=nightly", (r) => r.tags.includes("nightly")],
      ["task=coding", (r) => r.task === "coding"],
      ["test=true", (r) => r.test],
      ["test=false", (r) => !r.test],
      [`from=${new Date(T0 + 30 * 60_000).toISOString()}&to=${T0 + 60 * 60_000}`, (r) => r.createdAt >= T0 + 30 * 60_000 && r.createdAt <= T0 + 60 * 60_000],
    ];
    for (const [query, keep] of cases) {
      const ids = await allIds(query);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.length).toBeLessThan(rows.length);
      expect({ query, ids }).toEqual({ query, ids: expected(keep) });
    }
  });

  test("filters combine", async () => {
    expect(await allIds("tag=nightly&cache=miss&provider=openai")).toEqual(expected((r) => r.tags.includes("nightly") && r.cache === null && r.provider === "openai"));
    expect(await allIds("status=200&test=true&task=coding")).toEqual(expected((r) => r.status === 200 && r.test && r.task === "coding"));
    expect(await allIds("model=openai/gpt-4o-mini&tag=eval&from=" + (T0 + 50 * 60_000))).toEqual(
      expected((r) => r.selectedModel === "openai/gpt-4o-mini" && r.tags.includes("eval") && r.createdAt >= T0 + 50 * 60_000));
  });

  test("another project's rows never appear; its own session sees only them", async () => {
    const mine = await allIds("");
    const theirs = await allIds("", otherSession);
    expect(theirs).toHaveLength(30);
    expect(mine.filter((id) => theirs.includes(id))).toEqual([]);
    expect((await call(`/requests?project=${other}`)).status).toBe(404);
    expect(await allIds(`project=${other}`, operator)).toEqual(theirs);
  });

  test("bad params answer 400 invalid_request naming the param; no session answers 401", async () => {
    for (const [query, param] of [
      ["limit=0", "limit"], ["limit=101", "limit"], ["status=abc", "status"], ["cache=hit", "cache"], ["test=yes", "test"],
      ["error_category=NOPE", "error_category"], ["from=yesterday", "from"], [`from=${T0 + 1}&to=${T0}`, "from"], ["to=9999999999999999", "to"],
      ["model=", "model"], [`tag=${"x".repeat(201)}`, "tag"],
    ]) {
      const res = await call(`/requests?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: "invalid_request", param });
    }
    expect((await call("/requests", null)).status).toBe(401);
  });
});

describe("GET /dashboard/api/requests/:request_id", () => {
  test("the same body as GET /v1/requests/{id}; read-your-writes; another project's id is 404", async () => {
    const chat = await app.handle(new Request("http://localhost/v1/chat/completions", {
      method: "POST", headers: { authorization: `Bearer ${gw.testKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content: "Name a colour." }] }),
    }));
    expect(chat.status).toBe(200);
    const id = ((await chat.json()) as { gw: { request_id: string } }).gw.request_id;
    const res = await call(`/requests/${id}`);
    expect(res.status).toBe(200);
    const v1 = await app.handle(new Request(`http://localhost/v1/requests/${id}`, { headers: { authorization: `Bearer ${gw.testKey}` } }));
    expect(await res.json()).toEqual(await v1.json());
    expect((await call(`/requests/${id}`, otherSession)).status).toBe(404);
    expect((await call(`/requests/${rows[3]!.id}`, otherSession)).status).toBe(404);
    expect((await call("/requests/req_nope")).status).toBe(404);
  });
});

/** RFC 4180: quoted cells may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(cell), (cell = "");
    else if (c === "\r" && text[i + 1] === "\n") row.push(cell), out.push(row), (row = []), (cell = ""), i++;
    else cell += c;
  }
  return out;
}

describe("GET /dashboard/api/requests/export", () => {
  test("CSV: an attachment with a header row, the filtered rows newest first, quoting and formula cells made inert", async () => {
    const res = await call("/requests/export?format=csv&test=false&cache=miss");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toStartWith("default-src 'none'");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="requests-prj_\w+-[\dT-]+\.csv"$/);
    const [header, ...lines] = parseCsv(await res.text());
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(lines.map((l) => l[0])).toEqual(expected((r) => !r.test && r.cache === null));
    const seven = lines.find((l) => l[0] === rows[7]!.id)!;
    expect(seven[header!.indexOf("workflow_id")]).toBe("'=HYPERLINK(\"x\")");
    expect(seven[header!.indexOf("step")]).toBe("a, \"quoted\"\nline");
    expect(csvCell("-1+2")).toBe("'-1+2");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell(-1)).toBe("-1");
  });

  test("NDJSON: one log entry per line, the same entries as the list", async () => {
    const res = await call("/requests/export?format=ndjson&tag=nightly&provider=openai");
    expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    const lines = (await res.text()).trimEnd().split("\n").map((l) => JSON.parse(l) as { request_id: string });
    const listed: unknown[] = [];
    for (let after = ""; ;) {
      const body = (await (await call(`/requests?limit=100&tag=nightly&provider=openai${after}`)).json()) as ListBody;
      listed.push(...body.data);
      if (!body.has_more) break;
      after = `&after=${body.next_cursor}`;
    }
    expect(lines).toEqual(listed as typeof lines);
    expect((await call("/requests/export?format=xml")).status).toBe(400);
    expect((await call(`/requests/export?format=csv&project=${other}`)).status).toBe(404);
  });

  test("streamed page by page, up to the row cap, across scan windows with no match", async () => {
    const read = async (stream: ReadableStream<Uint8Array>) => (await new Response(stream).text()).trimEnd().split("\n").map((l) => (JSON.parse(l) as { request_id: string }).request_id);
    const repo = gw.deps.repos.requests;
    // (test=false leaves out the sandbox request of the detail test.)
    const all = parseLogFilters({ test: "false" });
    expect(await read(exportStream(repo, gw.projectId, all, "ndjson", { pageSize: 7 }))).toEqual(expected((r) => !r.test));
    expect(await read(exportStream(repo, gw.projectId, all, "ndjson", { pageSize: 7, maxRows: 30 }))).toEqual(expected((r) => !r.test).slice(0, 30));
    // One page per read: nothing is read ahead of the client.
    let pages = 0;
    const counting = { page: (p: string, f: LogFilters) => (pages++, repo.page(p, f)) };
    const reader = exportStream(counting, gw.projectId, all, "ndjson", { pageSize: 7 }).getReader();
    expect(pages).toBe(0);
    await reader.read();
    expect(pages).toBe(1);
    await reader.read();
    expect(pages).toBe(2);
    await reader.cancel();
    // Pages whose window held no match (a window of 3 rows, every 17th row matches) add nothing but continue.
    const sparse = { page: (p: string, f: LogFilters) => repo.page(p, f, 3) };
    const f = parseLogFilters({ status: "429", test: "false" });
    expect(await read(exportStream(sparse, gw.projectId, f, "ndjson", { pageSize: 2 }))).toEqual(expected((r) => r.status === 429 && !r.test));
  });
});
