// Invoices' reads of PostgreSQL's ledger (docs/scale-out.md): the sums
// SQLite's ledger repo gives (src/store/repos/ledger.ts monthSums, activeMonths), over the charge,
// credit and cache rows every instance's money store writes. Each read is one statement, one snapshot.
import type { MonthSums } from "../repos/ledger-types.ts";
import { bounded, type Postgres } from "./connect.ts";

interface SumRow { k: string; model: string | null; n: string | number; i: number; o: number; c: number; a: number; s: number }

export interface PostgresInvoiceLedger {
  monthSums(projectId: string, start: number, end: number): Promise<MonthSums>;
  activeMonths(projectId: string): Promise<string[]>;
}

export function postgresInvoiceLedger(pg: Postgres): PostgresInvoiceLedger {
  const { sql } = pg;
  return {
    monthSums: (projectId, start, end) => bounded(pg, "invoice sums", async () => {
      // Lines ordered as SQLite orders them: by model, bytewise, the model-less line first.
      const rows: SumRow[] = await sql`SELECT * FROM (
        SELECT 'line' AS k, model COLLATE "C" AS model, count(*) AS n, sum(input_tokens)::float8 AS i, sum(output_tokens)::float8 AS o,
            sum(cost)::float8 AS c, sum(amount)::float8 AS a, 0::float8 AS s
          FROM ledger WHERE project_id = ${projectId} AND kind = 'charge' AND created_at >= ${start}::bigint AND created_at < ${end}::bigint
          GROUP BY model
        UNION ALL
        SELECT kind, NULL, count(*), 0, 0, 0, coalesce(sum(amount), 0)::float8, coalesce(sum(saved), 0)::float8
          FROM ledger WHERE project_id = ${projectId} AND kind IN ('credit', 'cache') AND created_at >= ${start}::bigint AND created_at < ${end}::bigint
          GROUP BY kind
        ) AS sums ORDER BY k, model NULLS FIRST`;
      const sums: MonthSums = { lines: [], credits: { count: 0, amount: 0 }, cached: { count: 0, saved: 0 } };
      for (const r of rows) {
        if (r.k === "line") {
          sums.lines.push({ model: r.model, requests: Number(r.n), input_tokens: r.i, output_tokens: r.o, cost: r.c, charge: r.a });
        } else if (r.k === "credit") sums.credits = { count: Number(r.n), amount: r.a };
        else if (r.k === "cache") sums.cached = { count: Number(r.n), saved: r.s };
      }
      return sums;
    }),
    // The UTC months between the first and the last row, each probed on the (project, kind,
    // created_at) index: a few reads per month of history, never a scan of the project's rows.
    activeMonths: (projectId) => bounded(pg, "invoice months", async () => {
      const rows: Array<{ month: string }> = await sql`
        WITH bounds AS (
          SELECT least((SELECT min(created_at) FROM ledger WHERE project_id = ${projectId} AND kind = 'credit'),
                       (SELECT min(created_at) FROM ledger WHERE project_id = ${projectId} AND kind = 'charge'),
                       (SELECT min(created_at) FROM ledger WHERE project_id = ${projectId} AND kind = 'cache')) AS first,
                 greatest((SELECT max(created_at) FROM ledger WHERE project_id = ${projectId} AND kind = 'credit'),
                          (SELECT max(created_at) FROM ledger WHERE project_id = ${projectId} AND kind = 'charge'),
                          (SELECT max(created_at) FROM ledger WHERE project_id = ${projectId} AND kind = 'cache')) AS last
        )
        SELECT to_char(m, 'YYYY-MM') AS month
        FROM bounds, generate_series(date_trunc('month', to_timestamp(first / 1000.0) AT TIME ZONE 'UTC'),
                                     date_trunc('month', to_timestamp(last / 1000.0) AT TIME ZONE 'UTC'), interval '1 month') AS m
        WHERE first IS NOT NULL AND EXISTS (
          SELECT 1 FROM ledger l WHERE l.project_id = ${projectId} AND l.kind IN ('credit', 'charge', 'cache')
            AND l.created_at >= (extract(epoch FROM m) * 1000)::bigint AND l.created_at < (extract(epoch FROM m + interval '1 month') * 1000)::bigint)
        ORDER BY month DESC`;
      return rows.map((r) => r.month);
    }),
  };
}
