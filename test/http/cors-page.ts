// Bundled for the browser by cors-browser.test.ts: the page calls gw across origins with the openai
// SDK (a preflighted request) and offers `gwRun` on the page's global object.
import OpenAI from "openai";

interface Seen {
  model?: string;
  gwModel?: string | null;
  requestId?: string | null;
  error?: string;
}

async function run(baseURL: string, apiKey: string): Promise<Seen> {
  try {
    const client = new OpenAI({ baseURL, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: "gw-auto", messages: [{ role: "user", content: "hello from a page" }] }, { headers: { "x-gw-session": "page-1" } })
      .withResponse();
    return { model: data.model, gwModel: response.headers.get("x-gw-model"), requestId: response.headers.get("x-gw-request-id") };
  } catch (err) {
    return { error: String(err) };
  }
}

Object.assign(globalThis, { gwRun: run });
