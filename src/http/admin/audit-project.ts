// The project an admin call acted on when its path names another object (a key, a webhook, a rule):
// the audit entry is listed under that project (docs/dashboard.md "Audit log").
import type { Deps } from "../../pipeline/deps.ts";

/** One line per path parameter that names a project's object; null when none applies. */
export function projectOfTarget(deps: Deps, params: Record<string, string | undefined>): string | null {
  if (params.key_id) return deps.repos.apiKeys.get(params.key_id)?.projectId ?? null;
  // Multi-instance: both answer from what this instance has read lately (the object a call names
  // was read by its handler first), without a query.
  if (params.rule_id) return deps.alerts.projectOf(params.rule_id);
  if (params.webhook_id || params.delivery_id) return deps.webhooks.projectOf({ webhookId: params.webhook_id, deliveryId: params.delivery_id });
  return null;
}
