// A gw whose one OpenAI model has a given context window (through GW_CONFIG), with a scripted
// upstream and a live key: for tests of what happens at the window's edge (the token engine's).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScriptedUpstream } from "./scripted-upstream.ts";
import { openaiUpstream, startGw } from "./start-gw.ts";
import type { TestGw } from "./test-gw.ts";

export interface WindowGw { gw: TestGw; upstream: ScriptedUpstream; live: string; stop: () => Promise<void> }

export async function startWindowGw(window: number, model = "openai/gpt-4o-mini"): Promise<WindowGw> {
  const dir = mkdtempSync(join(tmpdir(), "gw-window-"));
  const config = join(dir, "gw.json");
  writeFileSync(config, JSON.stringify({ models: [{ id: model, context_window: window, max_output_tokens: 500 }] }));
  const started = await startGw({ upstreams: { openai: openaiUpstream() }, env: { GW_CONFIG: config } });
  const live = started.gw.key({ mode: "live", scopes: ["chat", "requests"] });
  const stop = async (): Promise<void> => {
    await started.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { gw: started.gw, upstream: started.upstreams.openai, live, stop };
}
