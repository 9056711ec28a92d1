// First start on an empty data directory (docs/running.md "First start"): a `default` project and one
// test key (with scope `requests`, so it signs in to the dashboard), printed once with the dashboard URL.
import { createProject } from "./admin/projects.ts";
import { issueKey } from "./auth/api-keys.ts";
import { DEFAULT_SCOPES } from "./config/constants.ts";
import type { Repos } from "./pipeline/deps.ts";

export interface Bootstrapped {
  projectId: string;
  testKey: string;
}

export function bootstrapIfEmpty(repos: Repos): Bootstrapped | null {
  if (repos.projects.count() > 0) return null;
  const project = createProject(repos.projects, { name: "default" });
  const { secret } = issueKey(repos.apiKeys, { projectId: project.id, name: "first-run test key", mode: "test", scopes: [...DEFAULT_SCOPES, "requests"] });
  return { projectId: project.id, testKey: secret };
}

/** `baseUrl` is the API's (…/v1); `dashboardUrl` the dashboard's (…/). */
export function firstRunBanner(b: Bootstrapped, baseUrl: string, dashboardUrl: string): string {
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
    `Dashboard: ${dashboardUrl} (sign in with the key above)`,
    "",
    "Lost the key? Make another (add --data DIR when the data directory is not ./data):",
    `  gw keys create --project ${b.projectId} --test --scopes chat,embeddings,models,cache,requests`,
    "",
  ].join("\n");
}
