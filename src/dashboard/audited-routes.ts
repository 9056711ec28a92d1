// A dashboard write audited as the admin API audits the same call (docs/dashboard.md "Audit log"): the
// admin route it stands for names the action; the session is the actor; a failure is audited too.
import { adminAuditOf } from "../audit/admin-actions.ts";
import { recordAudit } from "../audit/audit-log.ts";
import { GwError } from "../errors/gw-error.ts";
import type { Deps } from "../pipeline/deps.ts";
import { parseJsonObject, readBodyText } from "../schema/validate.ts";
import { actorOf, sourceIpOf } from "./session-plugin.ts";
import type { Viewer } from "./viewer.ts";

export interface WriteContext { viewer: Viewer; request: Request; server: unknown }

/** The admin API call a dashboard write stands for: `POST /projects/:id/webhooks` with its params. */
export interface AdminEquivalent {
  method: "POST" | "PATCH" | "DELETE";
  route: string;
  params: Record<string, string | undefined>;
  /** The project acted on when the params do not name it (a webhook's, a rule's); null for none. */
  projectId: string | null;
  status?: number;
}

/** Reads the JSON body (none for DELETE or an empty POST), runs `act`, records the audit entry. */
export async function auditedWrite<T>(deps: Deps, c: WriteContext, call: AdminEquivalent, act: (body: Record<string, unknown> | null) => T | Promise<T>): Promise<T> {
  const common = { actor: actorOf(c.viewer), sourceIp: sourceIpOf(c.request, c.server, deps) };
  const entry = (body: Record<string, unknown> | null, response: unknown) => {
    const audit = adminAuditOf({ method: call.method, route: call.route, params: call.params, body, response });
    return { ...audit, ...common, projectId: audit.projectId ?? call.projectId };
  };
  let body: Record<string, unknown> | null = null;
  try {
    const text = call.method === "DELETE" ? "" : await readBodyText(c.request);
    body = text.trim() === "" ? null : parseJsonObject(text);
    const response = await act(body);
    await recordAudit(deps, { ...entry(body, response), status: call.status ?? 200 });
    return response;
  } catch (err) {
    const audit = entry(body, null);
    const failure = err instanceof GwError ? { status: err.status, error: err.code } : { status: 500, error: "internal_error" };
    recordAudit(deps, { ...audit, outcome: "failure", status: failure.status, details: { ...audit.details, error: failure.error } });
    throw err;
  }
}
