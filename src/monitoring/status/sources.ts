// Where the status page reads its rollups and posts: this instance's SQLite, or PostgreSQL with
// several instances, so every instance shows the same page (docs/scale-out.md).
import type { Database } from "bun:sqlite";
import { postgresStatusPosts, postgresStatusRollups } from "../../store/postgres/status.ts";
import { sqliteStatusPostsStore, statusPostsRepo, type StatusPostsStore } from "../../store/repos/status-posts.ts";
import { sqliteStatusRollupsSource, statusRollupsRepo, type StatusRollupsSource } from "../../store/repos/status-rollups.ts";
import type { SharedState } from "../../store/shared.ts";

export function statusSources(db: Database, shared: SharedState | null): { rollups: StatusRollupsSource; posts: StatusPostsStore } {
  if (shared) return { rollups: postgresStatusRollups({ pg: shared.pg }), posts: postgresStatusPosts({ pg: shared.pg }) };
  return { rollups: sqliteStatusRollupsSource(statusRollupsRepo(db)), posts: sqliteStatusPostsStore(statusPostsRepo(db)) };
}
