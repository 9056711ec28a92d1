// Issue: one pino JSON line per request at info, with authorization and content redacted; prompts
// and answers never appear in a log line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { writeRequestLine, type RequestLineFields } from "../../src/observability/request-line.ts";
import { startServer, type RunningServer } from "../../src/server.ts";

const lines: string[] = [];
const capture = new Writable({
  write(chunk, _enc, done) {
    lines.push(...chunk.toString().split("\n").filter(Boolean));
    done();
  },
});

let server: RunningServer;
let key: string;
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), "gw-log-"));
  const config = loadConfig({ port: "0", data: dataDir }, {});
  const logger = createLogger("info", capture);
  const deps = buildDeps(config, { logger });
  const project = createProject(deps.repos.projects, { name: "p" });
  key = issueKey(deps.repos.apiKeys, { projectId: project.id, mode: "test" }).secret;
  server = startServer(config, { deps, quiet: true });
});

afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const MARKER = "PROMPT-MARKER-5e21";

describe("logs: one pino line per request, content redacted", () => {
  test("a request yields one info line with its id and no prompt or answer", async () => {
    const res = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: `${MARKER} please` }] }),
    });
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    const requestId = res.headers.get("x-gw-request-id");
    const mine = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.request_id === requestId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: 30, msg: "request", status: 200, provider: "sandbox" });
    const all = lines.join("\n");
    expect(all).not.toContain(MARKER);
    expect(all).not.toContain(body.choices[0]!.message.content);
    expect(all).not.toContain(key);
  });

  test("authorization and content handed to the logger are redacted", () => {
    const logger = createLogger("info", capture);
    logger.info({ headers: { authorization: `Bearer ${key}` }, messages: [MARKER], content: MARKER }, "probe");
    logger.flush();
    const probe = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === "probe");
    expect(probe).toBeDefined();
    expect(JSON.stringify(probe)).not.toContain(MARKER);
    expect(JSON.stringify(probe)).not.toContain(key);
    expect((probe!.headers as Record<string, string>).authorization).toBe("[redacted]");
  });

  test("the hand-built request line is exactly the line pino would write, and obeys the level", () => {
    const out: string[] = [];
    const sink = { write: (line: string) => void out.push(line) };
    const fields: RequestLineFields = {
      request_id: "req_1", project_id: "prj_\"q\"", endpoint: "chat.completions", status: 502, model: null,
      provider: "openai", latency_ms: 12, fallbacks: 1, error_code: "upstream_error", error_message: 'openai failed (HTTP 500). Upstream said: "a \\"quoted\\" text"', test: false,
    };
    const logger = createLogger("info", sink);
    logger.info(fields, "request");
    writeRequestLine(logger, fields);
    expect(out).toHaveLength(2);
    const [viaPino, viaLine] = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(typeof viaLine!.time).toBe("number");
    expect({ ...viaLine, time: 0 }).toEqual({ ...viaPino, time: 0 });
    expect(Object.keys(viaLine!)).toEqual(Object.keys(viaPino!));
    writeRequestLine(createLogger("warn", sink), fields);
    expect(out).toHaveLength(2);
  });
});
