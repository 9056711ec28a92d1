// What scored routing reads from the analysis: the catalog's task kind for a detected task.
import type { TaskKind } from "./catalog-types.ts";

/** The catalog's task kinds are the analyser's, "general" aside. */
export const taskKindOf = (task: string): TaskKind => (task === "general" ? "chat" : (task as TaskKind));
