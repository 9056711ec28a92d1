// A restart over the same data directory (docs/billing.md "The ledger"): balances and spent budgets are
// derived from the ledger again, and holds the previous process left open are released.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../../src/admin/projects.ts";
import { issueKey } from "../../../src/auth/api-keys.ts";
import { termsOf } from "../../../src/billing/terms.ts";
import { loadConfig } from "../../../src/config/env.ts";
import { buildDeps } from "../../../src/deps.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { startServer, type RunningServer } from "../../../src/server.ts";
import { startScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { ADMIN_TOKEN, post } from "../../helpers/test-gw.ts";
import { answerWith, MODEL, OPENAI_KEY, usd, user, worstChargeNano } from "./billing-helpers.ts";

const dataDir = mkdtempSync(join(tmpdir(), "gw-billing-restart-"));
const upstream = await startScriptedUpstream();
const config = loadConfig({ port: "0", data: dataDir }, {
  GW_ADMIN_TOKEN: ADMIN_TOKEN, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: upstream.url, GW_SEMANTIC_EMBEDDER: "off",
});
const start = (): RunningServer => startServer(config, { deps: buildDeps(config, { logger: createLogger("silent") }), quiet: true });
afterAll(async () => {
  await upstream.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const messages = user("Restart-proof spending.");
const worst = worstChargeNano(messages, 600);
const ask = (s: RunningServer, key: string) => post(`${s.url}/chat/completions`, key, { model: MODEL, messages, max_tokens: 600 }, { "x-gw-cache": "off" });
const balance = async (s: RunningServer, id: string) =>
  ((await (await fetch(`${s.url}/admin/projects/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { billing: { balance: number } }).billing.balance;

describe("docs/billing.md: restart", () => {
  test("balance and the day's spending survive; a hold left open by the dead process is released", async () => {
    let server = start();
    // The daily budget fits one answer's charge plus half a hold: the first request passes; after
    // it, only a forgotten total would let another through.
    const project = createProject(server.deps.repos.projects, {
      name: "restart", billing: { mode: "prepaid" }, policy: { budgets: { daily: usd(495_000 + Math.floor(worst / 2)) } },
    });
    const key = issueKey(server.deps.repos.apiKeys, { projectId: project.id, mode: "live" }).secret;
    await fetch(`${server.url}/admin/projects/${project.id}/credits`, {
      method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ amount: 1 }),
    });
    upstream.script({ body: answerWith(1_000, 500) });
    expect((await ask(server, key)).status).toBe(200);
    // A request still holding when the process dies (its hold was written, its end never was).
    const terms = termsOf(server.deps.repos.projects.get(project.id)!)!;
    expect(server.deps.billing.reserve(project.id, "req_died_mid_call", terms, 12_345).ok).toBe(true);
    expect(await balance(server, project.id)).toBe(usd(1e9 - 495_000));
    await server.stop();

    server = start();
    try {
      expect(await balance(server, project.id)).toBe(usd(1e9 - 495_000));
      const account = server.deps.billing.account(project.id);
      expect(account).toMatchObject({ reserved: 0, balance: 1e9 - 495_000 });
      expect(account.day.spent).toBe(495_000);
      expect(account.month.spent).toBe(495_000);
      const released = server.deps.db.query<{ amount: number; note: string }, [string]>(
        "SELECT amount, note FROM ledger WHERE request_id = ? AND kind = 'release'",
      ).all("req_died_mid_call");
      expect(released).toEqual([{ amount: 12_345, note: "restart" }]);
      expect(server.deps.db.query("SELECT * FROM ledger_open_holds").all()).toHaveLength(0);
      // The spent total came back: the next hold would pass the daily budget.
      const res = await ask(server, key);
      expect(res.status).toBe(402);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
    } finally {
      await server.stop();
    }
  });
});
