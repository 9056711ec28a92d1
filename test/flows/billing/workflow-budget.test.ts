// Agent workflow budgets (docs/routing.md "Workflow budgets"; issue 5 item 9): the summed cost
// of a workflow's requests stays within its budget. Steps are routed to cheaper models as the
// remainder shrinks; when nothing fits, 402 budget_exceeded; other workflows are unaffected.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

interface Answer { model: string; gw: { cost: number; request_id: string } }
const step = (workflow: string, budget: number, content: string, model = "gw-quality") =>
  post(`${gw.url}/chat/completions`, gw.testKey, { model, messages: [{ role: "user", content }], max_tokens: 400, gw: { workflow_id: workflow, workflow_budget: budget } });

describe("gw.workflow_budget", () => {
  test("steps stay within the budget, then 402 budget_exceeded; the summed cost never passes it", async () => {
    const budget = 0.002;
    let spent = 0;
    let refused = 0;
    const models = new Set<string>();
    for (let i = 0; i < 300 && refused < 3; i++) {
      const res = await step("wf-a", budget, `Step ${i}: ${"analyse the quarterly report and list the risks. ".repeat(40)}`);
      if (res.status === 402) {
        refused++;
        const body = (await res.json()) as { error: { code: string } };
        expect(body.error.code).toBe("budget_exceeded");
        continue;
      }
      expect(res.status).toBe(200);
      const body = (await res.json()) as Answer;
      spent += body.gw.cost;
      models.add(body.model);
    }
    expect(spent).toBeLessThanOrEqual(budget);
    expect(refused).toBeGreaterThan(0);
    // As the remainder shrank, cheaper models took over from the profile's first choice.
    expect(models.size).toBeGreaterThan(1);
    // Another workflow has its own budget.
    expect((await step("wf-b", budget, "A fresh workflow.")).status).toBe(200);
  });

  test("an explicit model that the remainder cannot cover answers 402, naming the model", async () => {
    const res = await step("wf-c", 0.0000001, "Too small a budget.", "anthropic/claude-opus-4-1");
    expect(res.status).toBe(402);
    const body = (await res.json()) as { error: { code: string; param: string } };
    expect(body.error).toMatchObject({ code: "budget_exceeded", param: "model" });
  });

  test("concurrent steps cannot overspend together: reservations hold the budget while calls run", async () => {
    const budget = 0.005;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => step("wf-d", budget, `Parallel step ${i} ${"with context ".repeat(200)}`)));
    let spent = 0;
    for (const res of results) {
      if (res.status === 200) spent += ((await res.json()) as Answer).gw.cost;
      else expect(res.status).toBe(402);
    }
    expect(spent).toBeLessThanOrEqual(budget);
  });
});
