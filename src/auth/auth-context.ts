// What an authenticated key resolves to: its project, the key, and the project's rules compiled
// for it (project-rules.ts). Cached as one object per key for a short while (auth-cache.ts).
import type { ApiKey } from "../store/repos/api-keys.ts";
import type { Project } from "../store/repos/projects.ts";
import type { ProjectRules } from "./project-rules.ts";

export interface AuthContext {
  project: Project;
  key: ApiKey;
  /** True for `gw_test_` keys: simulated answers, provider `sandbox`. */
  test: boolean;
  rules: ProjectRules;
}
