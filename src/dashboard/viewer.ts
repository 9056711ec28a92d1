// Who is looking at the dashboard (docs/dashboard.md "Sign-in and roles"): resolved from the
// session cookie by the session plugin for every /dashboard/api call.
import type { KeyScope } from "../config/constants.ts";

export type ViewerRole = "operator" | "project";

export interface Viewer {
  role: ViewerRole;
  /** The project of a project session; null for the operator (who may look at any project). */
  projectId: string | null;
  keyId: string | null;
  scopes: readonly KeyScope[];
  /** The signed-in person's e-mail (SSO sessions only). */
  email: string | null;
  sessionId: string;
}
