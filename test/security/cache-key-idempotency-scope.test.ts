// Issue 15 item 6: the idempotency fingerprint includes X-Gw-Cache-Scope, so a caller in another
// scope of the same key never gets a stored answer replayed (422 idempotency_mismatch instead),
// while the same scope still replays. Through the real server and a scripted upstream.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { post, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let up: ScriptedUpstream;
let key: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: up }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } }));
  key = gw.key({ mode: "live", scopes: ["chat"] });
});
afterAll(() => stop());

const body = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Summarise the scoped notes." }] };
const send = (idem: string, scope: string | null) =>
  post(`${gw.url}/chat/completions`, key, body, { "idempotency-key": idem, ...(scope === null ? {} : { "x-gw-cache-scope": scope }) });

describe("Idempotency-Key replays are bound to the cache scope", () => {
  test("another scope gets 422 idempotency_mismatch, the same scope a replay", async () => {
    const first = await send("scoped-1", "tenant-a");
    expect(first.status).toBe(200);
    const stored = await first.text();
    const other = await send("scoped-1", "tenant-b");
    expect(other.status).toBe(422);
    expect(other.headers.get("x-gw-api-version")).not.toBeNull();
    const err = (await other.json()) as { error: { code: string; message: string } };
    expect(err.error.code).toBe("idempotency_mismatch");
    expect(err.error.message).not.toContain("scoped notes");
    const none = await send("scoped-1", null);
    expect(none.status).toBe(422);
    await none.arrayBuffer();
    const again = await send("scoped-1", "tenant-a");
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(stored);
  });

  test("without a scope header the replay works as before", async () => {
    const first = await send("unscoped-1", null);
    const stored = await first.text();
    const again = await send("unscoped-1", null);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(stored);
  });
});
