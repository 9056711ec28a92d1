// One driver per upstream wire format for the conformance suite (issue 4 item 9): starts that
// format's scripted upstream, scripts its replies, and reads back what gw sent it in that format.
import { isObject } from "../../src/lib/json.ts";
import { type ScriptedAnthropic, startScriptedAnthropic } from "../helpers/scripted-anthropic.ts";
import { type ScriptedGemini, startScriptedGemini } from "../helpers/scripted-gemini.ts";
import { type ScriptedUpstream, startScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";

type Json = Record<string, unknown>;
export interface ToolSpec { name: string; args: Json }

export interface Driver {
  format: "openai" | "anthropic" | "google";
  /** The catalog model the suite asks gw for. */
  model: string;
  env: Record<string, string>;
  /** The body of the last request the upstream received. */
  lastBody(): Json;
  calls(): number;
  aborted(): number;
  reset(): void;
  text(text: string): void;
  tools(calls: ToolSpec[]): void;
  /** The next `times` requests answer this status. */
  error(status: number, times?: number): void;
  delay(ms: number): void;
  /** Answer `text` as a stream and drop the connection after this many events. */
  cut(afterEvents: number, text: string): void;
  /** Read back from the upstream's request, in its own format. */
  systemText(body: Json): string;
  imageCount(body: Json): number;
  toolResultIds(body: Json): string[];
  stopSequences(body: Json): string[];
  jsonMode(body: Json): boolean;
  stop(): Promise<void>;
}

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const objs = (v: unknown): Json[] => arr(v).filter(isObject);

export async function openaiDriver(): Promise<Driver> {
  const u: ScriptedUpstream = await startScriptedUpstream();
  return {
    format: "openai", model: "openai/gpt-4o-mini",
    env: upstreamEnv("openai", u.url, "sk-conformance"),
    lastBody: () => (u.calls.at(-1)?.body ?? {}) as Json,
    calls: () => u.calls.length, aborted: () => u.aborted, reset: () => u.reset(),
    text: (content) => u.script({ content }),
    tools: (calls) => u.script({ toolCalls: calls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.args) })) }),
    error: (status, times = 1) => u.script({ status }, times),
    delay: (delayMs) => u.script({ delayMs }),
    cut: (n, content) => u.script({ cutAfterChunks: n, content }),
    systemText: (b) => objs(b.messages).filter((m) => m.role === "system" || m.role === "developer").map((m) => String(m.content)).join("\n"),
    imageCount: (b) => objs(b.messages).flatMap((m) => objs(m.content)).filter((p) => p.type === "image_url").length,
    toolResultIds: (b) => objs(b.messages).filter((m) => m.role === "tool").map((m) => String(m.tool_call_id)),
    stopSequences: (b) => arr(b.stop).map(String),
    jsonMode: (b) => isObject(b.response_format) && b.response_format.type === "json_object",
    stop: () => u.stop(),
  };
}

export async function anthropicDriver(): Promise<Driver> {
  const u: ScriptedAnthropic = await startScriptedAnthropic({ apiKey: "sk-ant-conformance" });
  return {
    format: "anthropic", model: "anthropic/claude-sonnet-4-5",
    env: upstreamEnv("anthropic", u.url, "sk-ant-conformance"),
    lastBody: () => (u.calls.at(-1)?.body ?? {}) as Json,
    calls: () => u.calls.length, aborted: () => u.aborted, reset: () => u.reset(),
    text: (text) => u.script({ text }),
    tools: (calls) => u.script({ toolUses: calls.map((c) => ({ name: c.name, input: c.args as never })) }),
    error: (status, times = 1) => u.script({ status }, times),
    delay: (delayMs) => u.script({ delayMs }),
    cut: (n, text) => u.script({ cutAfterEvents: n, text }),
    systemText: (b) => objs(b.system).map((s) => String(s.text)).join("\n"),
    imageCount: (b) => objs(b.messages).flatMap((m) => objs(m.content)).filter((p) => p.type === "image").length,
    toolResultIds: (b) => objs(b.messages).flatMap((m) => objs(m.content)).filter((p) => p.type === "tool_result").map((p) => String(p.tool_use_id)),
    stopSequences: (b) => arr(b.stop_sequences).map(String),
    jsonMode: (b) => objs(b.system).some((s) => String(s.text).includes("JSON")),
    stop: () => u.stop(),
  };
}

export async function googleDriver(): Promise<Driver> {
  const u: ScriptedGemini = await startScriptedGemini({ apiKey: "gm-conformance" });
  const parts = (b: Json): Json[] => objs(b.contents).flatMap((c) => objs(c.parts));
  const config = (b: Json): Json => (isObject(b.generationConfig) ? b.generationConfig : {});
  return {
    format: "google", model: "google/gemini-2.5-flash",
    env: upstreamEnv("gemini", u.url, "gm-conformance"),
    lastBody: () => (u.calls.at(-1)?.body ?? {}) as Json,
    calls: () => u.calls.length, aborted: () => u.aborted, reset: () => u.reset(),
    text: (text) => u.script({ text }),
    tools: (calls) => u.script({ functionCalls: calls.map((c) => ({ name: c.name, args: c.args })) }),
    error: (status, times = 1) => u.script({ status }, times),
    delay: (delayMs) => u.script({ delayMs }),
    cut: (n, text) => u.script({ cutAfterEvents: n, text }),
    systemText: (b) => (isObject(b.systemInstruction) ? objs(b.systemInstruction.parts).map((p) => String(p.text)).join("\n") : ""),
    imageCount: (b) => parts(b).filter((p) => isObject(p.inlineData) || isObject(p.fileData)).length,
    toolResultIds: (b) => parts(b).filter((p) => isObject(p.functionResponse)).map((p) => String((p.functionResponse as Json).name)),
    stopSequences: (b) => arr(config(b).stopSequences).map(String),
    jsonMode: (b) => config(b).responseMimeType === "application/json",
    stop: () => u.stop(),
  };
}
