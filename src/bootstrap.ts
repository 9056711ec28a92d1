// First start on an empty data directory (docs/running.md "First start"): a `default` project and one
// test key, printed once so that `make run` is usable at once.
import { createProject } from "./admin/projects.ts";
import { issueKey } from "./auth/api-keys.ts";
import type { Repos } from "./pipeline/deps.ts";

export interface Bootstrapped {
  projectId: string;
  testKey: string;
}

export function bootstrapIfEmpty(repos: Repos): Bootstrapped | null {
  if (repos.projects.count() > 0) return null;
  const project = createProject(repos.projects, { name: "default" });
  const { secret } = issueKey(repos.apiKeys, { projectId: project.id, name: "first-run test key", mode: "test" });
  return { projectId: project.id, testKey: secret };
}

export function firstRunBanner(b: Bootstrapped, baseUrl: string): string {
  return [
    "",
    "gw: first start on an empty data directory.",
    `  project  default (${b.projectId})`,
    `  test key ${b.testKey}   (shown once; test mode: simulated answers, nothing charged)`,
    "",
    "Try it:",
    `  curl ${baseUrl}/chat/completions \\`,
    `    -H "Authorization: Bearer ${b.testKey}" \\`,
    `    -H "Content-Type: application/json" \\`,
    `    -d '{"model":"gw-auto","messages":[{"role":"user","content":"Hello!"}]}'`,
    "",
  ].join("\n");
}
