// The alert rules' and incidents' contract (docs/monitoring.md "Alert rules", "Incidents"), run against
// SQLite and PostgreSQL: deleted rules leave every read but projectOf, a state write guarded by
// updated_at loses to a PATCH made meanwhile, one open incident per rule, pages newest first.
import { describe, expect, test } from "bun:test";
import type { AlertRulesStore } from "../../../src/store/repos/alert-rules.ts";
import type { IncidentsStore } from "../../../src/store/repos/incidents.ts";

export interface AlertStores { rules: AlertRulesStore; incidents: IncidentsStore }
export type MakeAlertStores = () => AlertStores | Promise<AlertStores>;

let seq = 0;
const unique = (prefix: string) => `${prefix}_${process.pid}_${Date.now()}_${++seq}`;

export function alertStoreContract(name: string, make: MakeAlertStores): void {
  describe(`${name}: alert store contract`, () => {
    test("rules: insert, list in creation order, update, state guarded by updated_at, delete", async () => {
      const { rules } = await make();
      const project = unique("prj");
      const a = unique("alr_a");
      const b = unique("alr_b");
      await rules.insert({ id: a, projectId: project, rule: '{"name":"a"}', now: 1000 });
      await rules.insert({ id: b, projectId: project, rule: '{"name":"b"}', now: 2000 });
      expect((await rules.list(project)).map((r) => r.id)).toEqual([a, b]);
      expect(await rules.get(a)).toEqual({ id: a, projectId: project, rule: '{"name":"a"}', state: null, createdAt: 1000, updatedAt: 1000 });
      expect((await rules.all()).filter((r) => r.projectId === project).map((r) => r.id).sort()).toEqual([a, b].sort());

      expect(await rules.setState(a, '{"status":"pending"}', 1000)).toBe(true);
      expect((await rules.get(a))?.state).toBe('{"status":"pending"}');
      expect(await rules.update(a, '{"name":"a2"}', null, 3000)).toBe(true);
      // An evaluation that read the rule before the PATCH does not overwrite it.
      expect(await rules.setState(a, '{"status":"firing"}', 1000)).toBe(false);
      expect(await rules.get(a)).toMatchObject({ rule: '{"name":"a2"}', state: null, updatedAt: 3000 });
      await rules.setState(a, '{"status":"normal"}');
      expect((await rules.get(a))?.state).toBe('{"status":"normal"}');

      expect(await rules.remove(a, 4000)).toBe(true);
      expect(await rules.setState(a, '{"status":"firing"}')).toBe(false);
      expect(await rules.remove(a, 5000)).toBe(false);
      expect(await rules.get(a)).toBeNull();
      expect(await rules.update(a, "{}", null, 5000)).toBe(false);
      expect((await rules.list(project)).map((r) => r.id)).toEqual([b]);
      expect(await rules.projectOf(a)).toBe(project);
      expect(await rules.projectOf(unique("alr_none"))).toBeNull();
    });

    test("incidents: one open per rule, resolve returns the row, values, pages and built-in reads", async () => {
      const { incidents } = await make();
      const project = unique("prj");
      const rule = unique("alr");
      const base = { projectId: project, ruleId: rule, ruleName: "errors", component: null, severity: "warning", metric: "error_rate", threshold: 5, window: "5m", peakValue: 10, lastValue: 10 };
      const first = await incidents.open({ ...base, id: `inc_${unique("1")}`, openedAt: 1000 });
      expect(first).toMatchObject({ status: "opened", resolvedAt: null, openedAt: 1000 });
      expect(await incidents.open({ ...base, id: `inc_${unique("2")}`, openedAt: 2000 })).toBeNull();
      await incidents.setValues(rule, { peak: 30, last: 20 });
      expect(await incidents.openOf(rule)).toMatchObject({ id: first!.id, peakValue: 30, lastValue: 20, threshold: 5, window: "5m" });
      const resolved = await incidents.resolve(rule, 5000, { peak: 30, last: 1 });
      expect(resolved).toMatchObject({ id: first!.id, status: "resolved", resolvedAt: 5000, peakValue: 30, lastValue: 1 });
      expect(await incidents.resolve(rule, 6000, { peak: 0, last: 0 })).toBeNull();
      expect(await incidents.openOf(rule)).toBeNull();
      const second = await incidents.open({ ...base, id: `inc_${unique("3")}`, openedAt: 7000 });
      expect(second).not.toBeNull();

      const all = await incidents.list({ projectId: project, limit: 10 });
      expect(all.map((i) => i.id)).toEqual([second!.id, first!.id]);
      expect((await incidents.list({ projectId: project, status: "resolved", limit: 10 })).map((i) => i.id)).toEqual([first!.id]);
      expect((await incidents.list({ projectId: project, limit: 10, after: second!.id })).map((i) => i.id)).toEqual([first!.id]);
      expect(await incidents.list({ projectId: project, limit: 1 })).toHaveLength(1);

      const builtIn = `builtin:${unique("provider-x")}:availability`;
      const opened = await incidents.open({ ...base, projectId: null, ruleId: builtIn, component: "provider-x", id: `inc_${unique("4")}`, openedAt: 8000 });
      expect((await incidents.builtInSince(0)).map((i) => i.id)).toContain(opened!.id);
      await incidents.resolve(builtIn, 9000, { peak: 1, last: 1 });
      expect((await incidents.builtInSince(9001)).map((i) => i.id)).not.toContain(opened!.id);
      expect((await incidents.builtInSince(9000)).map((i) => i.id)).toContain(opened!.id);
    });
  });
}
