// Traces table: one JSON trace document per request (docs/api.md "Request detail"), scoped by project.
import type { Database } from "bun:sqlite";
import { parseStored, type JsonObject } from "../../lib/json.ts";
import { decodeTrace } from "../trace-codec.ts";

export function tracesRepo(db: Database) {
  const insert = db.query<unknown, [string, string, string]>(
    "INSERT INTO traces (request_id, project_id, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const GROUP = 16;
  const insertGroup = db.query<unknown, string[]>(
    `INSERT INTO traces (request_id, project_id, data) VALUES ${Array(GROUP).fill("(?, ?, ?)").join(", ")} ON CONFLICT DO NOTHING`,
  );
  const byId = db.query<{ data: string }, [string, string]>(
    "SELECT data FROM traces WHERE request_id = ? AND project_id = ?",
  );
  return {
    /** Takes the trace already serialised: rows are prepared before they reach the writer. */
    insert(requestId: string, projectId: string, traceJson: string): void {
      insert.run(requestId, projectId, traceJson);
    },
    /** Inserts the traces of a group of rows (those with a trace) in as few statements as it can. */
    insertMany(rows: Array<{ id: string; projectId: string; trace: string | null }>): void {
      const kept = rows.filter((r) => r.trace !== null);
      if (kept.length !== GROUP) return kept.forEach((r) => insert.run(r.id, r.projectId, r.trace!));
      insertGroup.run(...kept.flatMap((r) => [r.id, r.projectId, r.trace!]));
    },
    get(projectId: string, requestId: string): JsonObject | null {
      const row = byId.get(requestId, projectId);
      // Stored compactly (trace-codec.ts); read back in the record stage's shape.
      return row ? decodeTrace(parseStored<JsonObject | null>(row.data, null)) : null;
    },
  };
}

export type TracesRepo = ReturnType<typeof tracesRepo>;
