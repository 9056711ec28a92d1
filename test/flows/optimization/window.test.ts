// The token engine sits before routing (docs/optimization.md "Savings"): a request too large for the
// model's context window as sent fits once json_minify has run, and routing's window check passes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { countMessageTokens } from "../../../src/analysis/tokens.ts";
import type { ChatMessage } from "../../../src/canonical/chat.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { startWindowGw } from "../../helpers/window-gw.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";

let upstream: ScriptedUpstream;
let gw: TestGw;
let live: string;
let stop: () => Promise<void>;

beforeAll(async () => ({ gw, upstream, live, stop } = await startWindowGw(WINDOW)));
afterAll(() => stop());

const rows = Array.from({ length: 60 }, (_, i) => ({ sku: `SKU-${3000 + i}`, qty: i % 7, bin: `B${i % 9}` }));
const messages: ChatMessage[] = [{ role: "user", content: `Stock export:\n${JSON.stringify({ rows }, null, 8)}\nWhich bins hold SKU-3042?` }];
const minified: ChatMessage[] = [{ role: "user", content: `Stock export:\n${JSON.stringify({ rows })}\nWhich bins hold SKU-3042?` }];
/** A window between the two counts: the request fits only minified (with room for max_tokens). */
const WINDOW = Math.round((countMessageTokens(messages) + countMessageTokens(minified) + 100) / 2);

test("too large as sent, it fits once minified: the window check reads the optimised count", async () => {
  // Preconditions: over the window as sent, within it minified (with room for max_tokens).
  expect(countMessageTokens(messages)).toBeGreaterThan(WINDOW);
  expect(countMessageTokens(minified) + 100).toBeLessThan(WINDOW);
  const body = { model: "openai/gpt-4o-mini", messages, max_tokens: 100 };

  const off = await post(`${gw.url}/chat/completions`, live, body);
  // No model can take it: the explicit model's exclusion names the window.
  expect(off.status).toBe(503);
  expect(JSON.stringify(await off.json())).toContain(`context window ${WINDOW} too small`);
  expect(upstream.callCount()).toBe(0);

  const safe = await post(`${gw.url}/chat/completions`, live, { ...body, optimization: { mode: "safe" } });
  expect(safe.status).toBe(200);
  expect((upstream.calls[0]!.body as { messages: unknown }).messages).toEqual(minified);
});
