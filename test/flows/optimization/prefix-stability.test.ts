// cache_align end to end (issue 23 done-when): 10 turns of a session with optimization mode "safe",
// the client reordering its tool definitions' keys every turn; the scripted OpenAI and Anthropic
// upstreams hash the stable part of each body they receive, and turns 2..10 carry turn 1's exactly.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { ChatMessage } from "../../../src/canonical/chat.ts";
import type { ScriptedAnthropic } from "../../helpers/scripted-anthropic.ts";
import type { RecordedCall, ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { anthropicUpstream, openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";
import { filler, firstTurn, question, shuffledKeys, SYSTEM, TOOLS } from "../../optimization/cache-align-tools.ts";

let openai: ScriptedUpstream;
let anthropic: ScriptedAnthropic;
let gw: TestGw;
let key: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai, anthropic }, stop } = await startGw({
    upstreams: { openai: openaiUpstream({}, "sk-align"), anthropic: anthropicUpstream({ apiKey: "sk-ant-align" }) },
  }));
  key = gw.key({ mode: "live", scopes: ["chat", "requests"] });
});
afterAll(() => stop());

type Json = Record<string, unknown>;
interface Answer { model: string; choices: Array<{ message: { content: string | null } }>; gw: { request_id: string; provider: string } }
interface Stage { name: string; applied: boolean; reverted_reason?: string }
interface Detail { trace: { optimization: { mode: string; stages: Stage[] }; session: { id: string; pinned: string | null; sticky: boolean } | null } }

const sha = (s: string): string => createHash("sha256").update(s).digest("hex");
/** Anthropic reads the prefix's content; where its marks sit is not part of it. */
const unmarked = (v: unknown): string => JSON.stringify(v, (k, x: unknown) => (k === "cache_control" ? undefined : x));

/** What each upstream hashes: turn 1's stable part as it sits in a body (tools, system, then the
 * first `k` messages: every message but turn 1's last user turn, counted on that wire). */
const openaiStable = (body: Json, k: number): string =>
  sha(JSON.stringify(body.tools) + JSON.stringify((body.messages as unknown[]).slice(0, k)));
const anthropicStable = (body: Json, k: number): string =>
  sha(unmarked(body.tools) + unmarked(body.system) + unmarked((body.messages as unknown[]).slice(0, k)));

/** Plays a 10-turn session against gw and returns the answers; the tools' keys arrive in a new
 * order every turn; each upstream is scripted to answer text so the session goes on. */
async function session(model: string, mode: "safe" | "off", headers: Record<string, string> = {}): Promise<Answer[]> {
  openai.reset(); // each test reads the calls of its own session; unused scripts go too
  anthropic.reset();
  const answers: Answer[] = [];
  let messages: ChatMessage[] = firstTurn();
  for (let turn = 1; turn <= 10; turn++) {
    if (turn > 1) messages = [...messages, { role: "assistant", content: answers.at(-1)!.choices[0]!.message.content }, { role: "user", content: question(turn) }];
    openai.script({ content: `Answer ${turn}.` });
    anthropic.script({ text: `Answer ${turn}.` });
    const tools = TOOLS.map((t) => shuffledKeys(t, turn * 17 + (mode === "off" ? 1 : 0)));
    const res = await post(`${gw.url}/chat/completions`, key, { model, messages, tools, optimization: { mode } }, headers);
    expect(res.status).toBe(200);
    answers.push((await res.json()) as Answer);
  }
  return answers;
}

const detail = async (id: string): Promise<Detail> => {
  await gw.drain();
  return (await (await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Detail;
};

/** The bodies one upstream received during the last session. */
function bodiesOf(calls: RecordedCall[]): Json[] {
  return calls.map((c) => c.body as Json);
}

describe("cache_align: 10 turns, turn 1's stable part byte-identical at the upstream", () => {
  test("OpenAI-format upstream: turns 2..10 hash to turn 1's stable part; cache_align applied every turn", async () => {
    const answers = await session("openai/gpt-4o-mini", "safe");
    const bodies = bodiesOf(openai.calls);
    expect(bodies).toHaveLength(10);
    const k = firstTurn().length - 1;
    const hashes = bodies.map((b) => openaiStable(b, k));
    expect(new Set(hashes).size).toBe(1);
    for (const a of answers) {
      const stages = (await detail(a.gw.request_id)).trace.optimization.stages;
      expect(stages.find((s) => s.name === "cache_align")).toMatchObject({ applied: true });
    }
  });

  test("Anthropic-format upstream: the same, with gw's breakpoints on the stable prefix", async () => {
    await session("anthropic/claude-sonnet-4-5", "safe");
    const bodies = bodiesOf(anthropic.calls);
    expect(bodies).toHaveLength(10);
    const k = (bodies[0]!.messages as unknown[]).length - 1;
    expect(new Set(bodies.map((b) => anthropicStable(b, k))).size).toBe(1);
    for (const b of bodies) {
      // The scripted upstream refuses marks Anthropic would (more than four, on empty text...).
      const system = b.system as Array<{ cache_control?: unknown }>;
      expect(system.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
      const messages = b.messages as Array<{ content: Array<{ cache_control?: unknown }> }>;
      const marked = messages.flatMap((m, i) => m.content.flatMap((c, j) => (c.cache_control ? [[i, j]] : [])));
      const before = messages.length - 2; // the turn before the final user turn
      expect(marked).toEqual([[before, messages[before]!.content.length - 1]]);
    }
  });

  test("without cache_align (mode off) the same client breaks the prefix: the test can fail", async () => {
    await session("openai/gpt-4o-mini", "off");
    const k = firstTurn().length - 1;
    expect(new Set(bodiesOf(openai.calls).map((b) => openaiStable(b, k))).size).toBeGreaterThan(1);
  });
});

describe("cache_align keeps session stickiness", () => {
  test("gw-auto with X-Gw-Session: all 10 turns on one model and provider, pinned from turn 2, prefix stable there", async () => {
    const answers = await session("gw-auto", "safe", { "x-gw-session": "align-1" });
    const [openaiCalls, anthropicCalls] = [openai.calls, anthropic.calls];
    expect(new Set(answers.map((a) => `${a.model} ${a.gw.provider}`)).size).toBe(1);
    for (const [i, a] of answers.entries()) {
      const trace = (await detail(a.gw.request_id)).trace;
      expect(trace.session).toMatchObject({ id: "align-1", sticky: i > 0 });
      if (i > 0) expect(trace.session!.pinned).toBe(answers[0]!.model);
    }
    const [calls, stable] = openaiCalls.length > 0 ? [openaiCalls, openaiStable] : [anthropicCalls, anthropicStable];
    expect(calls).toHaveLength(10);
    const k = ((calls[0]!.body as Json).messages as unknown[]).length - 1;
    expect(new Set(bodiesOf(calls).map((b) => stable(b, k))).size).toBe(1);
  });
});

describe("cache_align behind the Anthropic Messages ingress (a Claude Code-like client)", () => {
  /** The tools in Anthropic's shape; the client's own marks move to its latest turn every time. */
  const anthropicTools = TOOLS.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters }));
  const text = (t: string, mark = false) => ({ type: "text", text: t, ...(mark ? { cache_control: { type: "ephemeral" } } : {}) });

  test("10 turns to /v1/messages with mode safe, tool keys reordered and the caller's marks moving: turn 1's stable part arrives intact", async () => {
    anthropic.reset();
    const history: Json[] = [
      { role: "user", content: [text("What is the weather in Paris for the next 3 days, in celsius?")] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_w1", name: "get_weather", input: { city: "Paris", unit: "celsius", days: 3 } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_w1", content: filler(1_500, "Paris: 14 C, light rain; ") }] },
      { role: "assistant", content: [text("Paris: about 14 C with light rain for the next three days.")] },
    ];
    let asked = "Find me a hotel near the Louvre for 2 nights from 2026-12-03.";
    for (let turn = 1; turn <= 10; turn++) {
      anthropic.script({ text: `Answer ${turn}.` });
      const body = {
        model: "anthropic/claude-sonnet-4-5",
        max_tokens: 1_024,
        system: [text(SYSTEM, true)],
        tools: anthropicTools.map((t) => shuffledKeys(t, turn * 23)),
        messages: [...history, { role: "user", content: [text(asked, true)] }],
        optimization: { mode: "safe" },
      };
      const res = await fetch(`${gw.url}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "anthropic-version": "2023-06-01" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { content: Array<{ type: string; text?: string }> };
      history.push({ role: "user", content: [text(asked)] }, { role: "assistant", content: [text(answer.content[0]!.text!)] });
      asked = question(turn + 1);
    }
    const bodies = bodiesOf(anthropic.calls);
    expect(bodies).toHaveLength(10);
    const k = (bodies[0]!.messages as unknown[]).length - 1;
    expect(new Set(bodies.map((b) => anthropicStable(b, k))).size).toBe(1);
  });
});
