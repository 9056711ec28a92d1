// Traces table: one JSON trace document per request (gateway-api.md 2.2), scoped by project.
import type { Database } from "bun:sqlite";
import { parseStored, type JsonObject } from "../../lib/json.ts";

export function tracesRepo(db: Database) {
  const insert = db.query<unknown, [string, string, string]>(
    "INSERT OR IGNORE INTO traces (request_id, project_id, data) VALUES (?, ?, ?)",
  );
  const byId = db.query<{ data: string }, [string, string]>(
    "SELECT data FROM traces WHERE request_id = ? AND project_id = ?",
  );
  return {
    insert(requestId: string, projectId: string, trace: JsonObject): void {
      insert.run(requestId, projectId, JSON.stringify(trace));
    },
    get(projectId: string, requestId: string): JsonObject | null {
      const row = byId.get(requestId, projectId);
      return row ? parseStored<JsonObject | null>(row.data, null) : null;
    },
  };
}

export type TracesRepo = ReturnType<typeof tracesRepo>;
