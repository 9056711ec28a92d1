// Bundled for the browser by cors-browser.test.ts: the page calls gw across origins with the openai
// and Anthropic SDKs (preflighted requests) and offers `gwRun` and `gwRunAnthropic` on its global object.
import Anthropic from "@anthropic-ai/sdk";
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

/** The Messages API with an x-api-key, as Claude clients in a browser call it. */
async function runAnthropic(root: string, apiKey: string): Promise<Seen> {
  try {
    const client = new Anthropic({ baseURL: root, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
    const { data, response } = await client.messages
      .create({ model: "gw-auto", max_tokens: 32, messages: [{ role: "user", content: "hello from a page" }] })
      .withResponse();
    return { model: data.model, gwModel: response.headers.get("x-gw-model"), requestId: response.headers.get("request-id") };
  } catch (err) {
    return { error: String(err) };
  }
}

Object.assign(globalThis, { gwRun: run, gwRunAnthropic: runAnthropic });
