// Shared by the billing flow tests (docs/billing.md): a real gw with live keys against a scripted
// OpenAI whose usage the test decides, admin calls, the worst-case charge the reserve stage holds,
// and the ledger as the tests read it.
import { boundMessageTokens } from "../../../src/analysis/tokens.ts";
import { chargeNano, toUsd } from "../../../src/billing/money.ts";
import { buildCatalog } from "../../../src/routing/catalog.ts";
import { maxCostOf } from "../../../src/routing/cost.ts";
import type { ChatMessage } from "../../../src/canonical/chat.ts";
import type { ScriptedUpstream, UpstreamOptions } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { admin, addCredits, billedProject } from "../../helpers/admin-api.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";

export const OPENAI_KEY = "sk-billing-operator-000000";
export const MODEL = "openai/gpt-4o-mini";

export async function startBillingGw(options: UpstreamOptions = {}, env: Record<string, string> = {}) {
  const { gw, upstreams, stop } = await startGw({ upstreams: { openai: openaiUpstream(options, OPENAI_KEY) }, env: { GW_SEMANTIC_EMBEDDER: "off", ...env } });
  return { gw, upstream: upstreams.openai, stop };
}

export const user = (content: string): ChatMessage[] => [{ role: "user", content }];

/** The cache stays out of the way unless a test wants it. */
export const chat = (gw: TestGw, key: string, body: Record<string, unknown>, headers: Record<string, string> = { "x-gw-cache": "off" }) =>
  post(`${gw.url}/chat/completions`, key, { model: MODEL, ...body }, headers);

/** The reservation for a chat request: max cost at the byte bound and max_tokens, plus 10%. */
export function worstChargeNano(messages: ChatMessage[], maxTokens: number, modelId = MODEL, byok = false): number {
  const model = catalogModel(modelId);
  return chargeNano(maxCostOf(model, boundMessageTokens(messages), maxTokens), byok);
}

const catalog = buildCatalog(undefined, []);

export function catalogModel(id: string) {
  const m = catalog.get(id);
  if (!m) throw new Error(`no catalog model ${id}`);
  return m;
}

/** An OpenAI answer with exactly this usage, so cost and charge are known to the nano-dollar. */
export function answerWith(prompt: number, completion: number, content = "Billed answer."): Record<string, unknown> {
  return {
    id: "chatcmpl-billing", object: "chat.completion", created: 1, model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

export interface LedgerRow {
  seq: number;
  kind: string;
  amount: number;
  request_id: string | null;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  saved: number;
  byok: number;
  note: string | null;
}

/** The project's ledger rows, after everything queued is written. */
export async function ledgerOf(gw: TestGw, projectId: string): Promise<LedgerRow[]> {
  await gw.deps.billing.drain();
  return gw.deps.db.query<LedgerRow, [string]>("SELECT * FROM ledger WHERE project_id = ? ORDER BY seq").all(projectId);
}

export const sumOf = (rows: LedgerRow[], kind: string): number => rows.filter((r) => r.kind === kind).reduce((n, r) => n + r.amount, 0);

export async function balanceUsd(gw: TestGw, projectId: string): Promise<number> {
  const res = await admin(gw, "GET", `/projects/${projectId}`);
  return ((await res.json()) as { billing: { balance: number } }).billing.balance;
}

export const usd = toUsd;

export async function errorCode(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

export type { TestGw, ScriptedUpstream };
export { admin, addCredits, billedProject };
