// A gw over a scripted OpenAI for the guard's flow tests (docs/guard.md): projects made through
// the admin API with a given policy, live keys for them, and what the upstream was sent.
import { expect } from "bun:test";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { ADMIN_TOKEN, type TestGw } from "../../helpers/test-gw.ts";

export interface GuardGw {
  gw: TestGw;
  upstream: ScriptedUpstream;
  /** A live key (chat, embeddings, requests) of a new project with this policy. */
  keyFor(policy: Record<string, unknown>): Promise<{ key: string; projectId: string }>;
  stop(): Promise<void>;
}

export async function startGuardGw(env: Record<string, string> = {}): Promise<GuardGw> {
  const { gw, upstreams: { openai: upstream }, stop } = await startGw({
    upstreams: { openai: openaiUpstream({}, "sk-upstream-guard") }, env: { GW_SEMANTIC_EMBEDDER: "off", ...env },
  });
  let n = 0;
  return {
    gw,
    upstream,
    async keyFor(policy) {
      const res = await fetch(`${gw.url}/admin/projects`, {
        method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `guard-${++n}`, policy }),
      });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      return { key: gw.key({ projectId: id, mode: "live", scopes: ["chat", "embeddings", "requests"] }), projectId: id };
    },
    stop,
  };
}

/** The messages of the upstream's last chat call. */
export function sentMessages(upstream: ScriptedUpstream): Array<Record<string, unknown>> {
  const call = upstream.calls.findLast((c) => c.path.endsWith("/chat/completions"));
  if (!call) throw new Error("the upstream got no chat call");
  return (call.body as { messages: Array<Record<string, unknown>> }).messages;
}
