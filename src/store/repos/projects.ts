// Projects table: plan, billing and policy per project (docs/api.md "Admin API").
import type { Database } from "bun:sqlite";
import { parseStored } from "../../lib/json.ts";
import { policyFrom, type Policy } from "../../schema/admin.ts";

export type Plan = "free" | "pro" | "business";
export type BillingMode = "prepaid" | "postpaid";

export interface Project {
  id: string;
  name: string;
  plan: Plan;
  billingMode: BillingMode;
  balance: number;
  creditLimit: number | null;
  policy: Policy;
  createdAt: number;
}

interface ProjectRow {
  id: string;
  name: string;
  plan: string;
  billing_mode: string;
  balance: number;
  credit_limit: number | null;
  policy: string;
  created_at: number;
}

const fromRow = (r: ProjectRow): Project => ({
  id: r.id,
  name: r.name,
  plan: r.plan as Plan,
  billingMode: r.billing_mode as BillingMode,
  balance: r.balance,
  creditLimit: r.credit_limit,
  policy: policyFrom(parseStored<unknown>(r.policy, {})),
  createdAt: r.created_at,
});

export function projectsRepo(db: Database) {
  const insert = db.query(
    `INSERT INTO projects (id, name, plan, billing_mode, balance, credit_limit, policy, created_at)
     VALUES ($id, $name, $plan, $billing_mode, $balance, $credit_limit, $policy, $created_at)`,
  );
  const byId = db.query<ProjectRow, [string]>("SELECT * FROM projects WHERE id = ?");
  const byName = db.query<ProjectRow, [string]>("SELECT * FROM projects WHERE name = ? ORDER BY id LIMIT 1");
  const count = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM projects");
  const all = db.query<ProjectRow, []>("SELECT * FROM projects ORDER BY created_at, id");
  const first = db.query<{ id: string }, []>("SELECT id FROM projects ORDER BY created_at, id LIMIT 1");
  const update = db.query(
    `UPDATE projects SET name = $name, plan = $plan, billing_mode = $billing_mode, balance = $balance,
       credit_limit = $credit_limit, policy = $policy WHERE id = $id`,
  );
  const addBalance = db.query<ProjectRow, [number, string]>(
    "UPDATE projects SET balance = balance + ? WHERE id = ? RETURNING *",
  );

  const toParams = (p: Project) => ({
    id: p.id,
    name: p.name,
    plan: p.plan,
    billing_mode: p.billingMode,
    balance: p.balance,
    credit_limit: p.creditLimit,
    policy: JSON.stringify(p.policy),
  });

  return {
    create(p: Project): Project {
      insert.run({ ...toParams(p), created_at: p.createdAt });
      return p;
    },
    get(id: string): Project | null {
      const row = byId.get(id);
      return row ? fromRow(row) : null;
    },
    findByName(name: string): Project | null {
      const row = byName.get(name);
      return row ? fromRow(row) : null;
    },
    count: (): number => count.get()?.n ?? 0,
    /** Every project, oldest first (the operator's project list). */
    list: (): Project[] => all.all().map(fromRow),
    /** The first project created (the operator's when the dashboard's URL names none). */
    firstId: (): string | null => first.get()?.id ?? null,
    save(p: Project): Project {
      update.run(toParams(p));
      return p;
    },
    /** Atomic in SQL, so concurrent top-ups never lose one another. */
    addCredits(id: string, amount: number): Project | null {
      const row = addBalance.get(amount, id);
      return row ? fromRow(row) : null;
    },
  };
}

export type ProjectsRepo = ReturnType<typeof projectsRepo>;
