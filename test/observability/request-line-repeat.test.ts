// The request line (src/observability/request-line.ts) keeps the JSON text of values that repeat
// from request to request: the second and later lines are still exactly what pino writes.
import { expect, test } from "bun:test";
import { createLogger } from "../../src/observability/logger.ts";
import { writeRequestLine, type RequestLineFields } from "../../src/observability/request-line.ts";

test("repeated and changing values give pino's line every time", () => {
  const out: string[] = [];
  const logger = createLogger("info", { write: (line: string) => void out.push(line) });
  const base: RequestLineFields = {
    request_id: "req_1", project_id: "prj_\"q\"\u2028", endpoint: "chat.completions", status: 200, model: "openai/gpt-4o-mini",
    provider: "openai", latency_ms: 3, fallbacks: 0, error_code: null, error_message: null, test: false,
  };
  const variants: RequestLineFields[] = [
    base, base, { ...base, request_id: "req_2", error_code: "upstream_error", error_message: 'openai failed (HTTP 502). Upstream said: "bad \\"gateway\\"\u2028"', status: 502 }, { ...base, model: null, provider: null },
    { ...base, project_id: "prj_b", endpoint: "responses", error_code: "upstream_error" }, base,
  ];
  for (const fields of variants) {
    out.length = 0;
    logger.info(fields, "request");
    writeRequestLine(logger, fields);
    const [viaPino, viaLine] = out.map((l) => l.replace(/"time":\d+/, '"time":0'));
    expect(viaLine).toBe(viaPino!);
  }
});
