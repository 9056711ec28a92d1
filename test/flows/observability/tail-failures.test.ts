// The tail records every request however it ends (docs/architecture.md "Errors"): when meter
// throws, the JSON answer is a 500 in the envelope and the stream ends with an in-stream error
// event, and either way the request's log row is written with the error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BASELINE_MODEL_ID } from "../../../src/routing/profiles.ts";
import { requestDetail, sseData } from "../../helpers/flow-helpers.ts";
import { post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
let armed = false;
beforeAll(async () => {
  gw = await startTestGw();
  // Meter prices the baseline of a profile request through the catalog: make that one read fail.
  const catalog = gw.deps.catalog;
  const get = catalog.get.bind(catalog);
  catalog.get = (id: string) => {
    if (armed && id === BASELINE_MODEL_ID) throw new Error("meter broke");
    return get(id);
  };
});
afterAll(() => gw.stop());

const body = (stream: boolean) => ({ model: "gw-auto", stream, messages: [{ role: "user", content: "Name a river in France." }] });

describe("a tail that throws", () => {
  test("JSON: 500 internal_error, and the request is still in the log with its error", async () => {
    armed = true;
    const res = await post(`${gw.url}/chat/completions`, gw.testKey, body(false));
    armed = false;
    expect(res.status).toBe(500);
    const error = ((await res.json()) as { error: { code: string } }).error;
    expect(error.code).toBe("internal_error");
    const id = res.headers.get("x-gw-request-id")!;
    await gw.drain();
    const detail = await requestDetail(gw.url, gw.testKey, id);
    expect(detail.status).toBe(200);
    expect(detail.body.status).toBe(500);
    expect(detail.body.error?.code).toBe("internal_error");
  });

  test("stream: the answer ends with an in-stream error event, and the request is in the log", async () => {
    armed = true;
    const res = await post(`${gw.url}/chat/completions`, gw.testKey, body(true));
    const frames = await sseData(res);
    armed = false;
    expect(res.status).toBe(200);
    const last = frames.filter((f) => f !== "[DONE]").at(-1)!;
    expect((JSON.parse(last) as { error?: { code: string } }).error?.code).toBe("internal_error");
    const id = res.headers.get("x-gw-request-id")!;
    await gw.drain();
    const detail = await requestDetail(gw.url, gw.testKey, id);
    expect(detail.status).toBe(200);
    expect(detail.body.error?.code).toBe("internal_error");
  });
});
