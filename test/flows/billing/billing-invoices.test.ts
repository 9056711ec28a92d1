// Invoices, credits and billing settings through the admin API and the CLI (docs/billing.md
// "Admin API and CLI", "Invoices", "Plans"): monthly invoices from the ledger with lines per model,
// credits and cached savings; credits as ledger entries, also from the CLI while the server runs;
// zero retention only on Business.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { monthKey } from "../../../src/billing/periods.ts";
import { waitFor } from "../../helpers/wait-for.ts";
import { addCredits, admin, answerWith, balanceUsd, billedProject, chat, user, startBillingGw, type ScriptedUpstream, type TestGw } from "./billing-helpers.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
beforeAll(async () => ({ gw, upstream, stop } = await startBillingGw()));
afterAll(() => stop());

const ROOT = join(import.meta.dir, "..", "..", "..");
async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/_API_KEY$|_BASE_URL$|^GW_/.test(k)) env[k] = v;
  const proc = Bun.spawn(["bun", "run", "src/main.ts", ...args, "--data", gw.dataDir], { cwd: ROOT, env: { ...env, GW_LOG_LEVEL: "warn" }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`gw ${args.join(" ")}: ${code} ${err}`);
  return JSON.parse(out) as Record<string, unknown>;
}

const nano = (n: number) => n / 1e9;

describe("GET /admin/projects/{id}/invoices", () => {
  test("lines per model, credits, cached savings and totals for the month", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 2);
    await addCredits(gw, p.id, 0.5);
    upstream.script({ body: answerWith(1_000, 500) }, 2);
    for (const q of ["First question?", "Second question?"]) expect((await chat(gw, p.key, { messages: user(q), max_tokens: 600 })).status).toBe(200);
    upstream.script({ body: answerWith(2_000, 100) });
    expect((await chat(gw, p.key, { model: "openai/gpt-4.1-nano", messages: user("Third?"), max_tokens: 600 })).status).toBe(200);
    // Charged once, then answered from the cache.
    upstream.script({ body: answerWith(20, 10) });
    const cached = { messages: user("What is the chemical symbol for gold?"), max_tokens: 50 };
    expect((await chat(gw, p.key, cached, {})).status).toBe(200);
    expect((await chat(gw, p.key, cached, {})).status).toBe(200);

    const month = monthKey(Date.now());
    const res = await admin(gw, "GET", `/projects/${p.id}/invoices?month=${month}`);
    expect(res.status).toBe(200);
    const list = (await res.json()) as { object: string; data: Array<Record<string, unknown>> };
    expect(list.object).toBe("list");
    expect(list.data).toHaveLength(1);
    const invoice = list.data[0]!;
    expect(invoice).toMatchObject({
      object: "invoice", project_id: p.id, month, status: "open", currency: "usd", billing_mode: "prepaid",
      plan: { name: "pro", price: 49, currency: "eur", included_requests: null },
      credits: { count: 2, amount: 2.5 },
      // The hit saved what the first answer cost: (20 x 0.15 + 10 x 0.60) / 1e6.
      cached: { requests: 1, saved: nano(9_000) },
    });
    // gpt-4o-mini: 1000/500 twice and 20/10 once; gpt-4.1-nano: 2000/100 at 0.10 and 0.40 per million.
    expect(invoice.lines).toEqual([
      { model: "openai/gpt-4.1-nano", requests: 1, input_tokens: 2_000, output_tokens: 100, cost: nano(240_000), markup: nano(24_000), charge: nano(264_000) },
      { model: "openai/gpt-4o-mini", requests: 3, input_tokens: 2_020, output_tokens: 1_010, cost: nano(909_000), markup: nano(90_900), charge: nano(999_900) },
    ]);
    expect(invoice.totals).toEqual({
      requests: 4, input_tokens: 4_020, output_tokens: 1_110, cost: nano(1_149_000), markup: nano(114_900), charge: nano(1_263_900),
      credits: 2.5, cached_saved: nano(9_000),
    });
    // The balance is credits less charges.
    expect(await balanceUsd(gw, p.id)).toBe(nano(2_500_000_000 - 1_263_900));

    // Without ?month: every month with activity, and the current one, newest first.
    const all = (await (await admin(gw, "GET", `/projects/${p.id}/invoices`)).json()) as { data: Array<{ month: string }> };
    expect(all.data.map((i) => i.month)).toEqual([month]);
    // The CLI prints the same invoice, read from the ledger on disk.
    const printed = (await cli("invoices", "--project", p.id, "--month", month)) as { data: Array<{ totals: unknown; lines: unknown }> };
    expect(printed.data[0]!.totals).toEqual(invoice.totals);
    expect(printed.data[0]!.lines).toEqual(invoice.lines);
  });
});

describe('credits (docs/billing.md "Admin API and CLI")', () => {
  test("credits are ledger entries; `gw credits add` while the server runs reaches its balance", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    expect(await addCredits(gw, p.id, 3)).toBe(3);
    expect(gw.deps.billing.account(p.id).balance).toBe(3e9);
    const printed = await cli("credits", "add", "--project", p.id, "--amount", "4.25");
    expect(printed).toEqual({ object: "credits", balance: 7.25 });
    // The server polls the ledger for credits another process wrote.
    expect(await waitFor(() => gw.deps.billing.account(p.id).balance === 7.25e9, { timeoutMs: 5_000 })).toBe(true);
    expect(await balanceUsd(gw, p.id)).toBe(7.25);
    const rows = gw.deps.db.query<{ amount: number; note: string }, [string]>("SELECT amount, note FROM ledger WHERE project_id = ? AND kind = 'credit' ORDER BY seq").all(p.id);
    expect(rows).toEqual([{ amount: 3e9, note: "admin api" }, { amount: 4.25e9, note: "cli" }]);
  });
});

describe("billing settings through PATCH /admin/projects/{id}", () => {
  test("plan, billing mode and limit, budgets and budget_action", async () => {
    const p = await billedProject(gw);
    const res = await admin(gw, "PATCH", `/projects/${p.id}`, {
      plan: "free", billing: { mode: "postpaid", credit_limit: 25 }, policy: { budgets: { daily: 1, monthly: 20 }, budget_action: "warn" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      plan: "free", billing: { mode: "postpaid", balance: 0, credit_limit: 25 }, policy: { budgets: { daily: 1, monthly: 20 }, budget_action: "warn" },
    });
    const bad = await admin(gw, "PATCH", `/projects/${p.id}`, { policy: { budget_action: "shout" } });
    expect(bad.status).toBe(400);
  });

  test("zero retention is a Business feature: refused on other plans at every admin write", async () => {
    const refused = await admin(gw, "POST", "/projects", { name: "zr", policy: { retention: "zero" } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { param: string; message: string } }).error).toMatchObject({ param: "policy.retention" });
    const p = await billedProject(gw, { plan: "business", policy: { retention: "zero" } });
    // Leaving Business while zero retention is on: refused, naming the plan...
    const down = await admin(gw, "PATCH", `/projects/${p.id}`, { plan: "pro" });
    expect(down.status).toBe(400);
    expect(((await down.json()) as { error: { param: string } }).error.param).toBe("plan");
    // ...unless the same write sets another retention.
    expect((await admin(gw, "PATCH", `/projects/${p.id}`, { plan: "pro", policy: { retention: "standard" } })).status).toBe(200);
    const again = await admin(gw, "PATCH", `/projects/${p.id}`, { policy: { retention: "zero" } });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: { param: string } }).error.param).toBe("policy.retention");
  });
});
