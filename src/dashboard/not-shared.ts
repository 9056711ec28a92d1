// Features whose state is not shared between instances yet answer 503 in the multi-instance mode
// (docs/scale-out.md) rather than silently living in one instance's SQLite file.
import { GwError } from "../errors/gw-error.ts";

export const notShared = (feature: string): GwError =>
  new GwError("service_unavailable", `${feature} is not available in the multi-instance mode yet; see docs/scale-out.md.`);
