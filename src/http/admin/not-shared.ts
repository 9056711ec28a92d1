// Admin routes whose state is not shared between instances yet answer 503 in the multi-instance
// mode (docs/scale-out.md), the same way as the dashboard's (dashboard/not-shared.ts).
import type { GwError } from "../../errors/gw-error.ts";
import { notShared } from "../../dashboard/not-shared.ts";

export { notShared };

/** Routes of admin-routes.ts itself (after /admin) whose state is one instance's. */
const ADMIN_ROUTES: ReadonlyMap<string, string> = new Map([
]);

/** The 503 for an admin route pattern (e.g. /v1/admin/projects/:id/sso) that is not shared yet,
 * or undefined. Asked in the multi-instance mode only. */
export function adminNotShared(route: string): GwError | undefined {
  const feature = ADMIN_ROUTES.get(route.slice(route.indexOf("/admin/") + "/admin".length));
  return feature === undefined ? undefined : notShared(feature);
}
