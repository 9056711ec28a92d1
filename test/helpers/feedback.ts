// Requests to rate and ratings to send, for the feedback contract and flow tests.
import { post, type TestGw } from "./test-gw.ts";

/** `served` answers a request no other test sends (the exact cache would answer a repeat) and returns its id. */
export function feedbackCalls(gw: () => TestGw, defaultModel = "openai/gpt-4o-mini") {
  let n = 0;
  return {
    async served(model = defaultModel, key = gw().testKey): Promise<string> {
      const res = await post(`${gw().url}/chat/completions`, key, { model, messages: [{ role: "user", content: `Translate "good morning, number ${++n}" into French.` }] });
      await res.text();
      return res.headers.get("x-gw-request-id")!;
    },
    rate: (id: string, body: unknown, key: string | null = gw().testKey) => post(`${gw().url}/requests/${id}/feedback`, key, body),
  };
}
