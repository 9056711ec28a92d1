// Reads of the multi-instance mode's PostgreSQL from a route: PostgreSQL out of reach answers 503
// service_unavailable (errors/gw-error.ts toGwError), anything else stays what it is (a 500, logged).
import { toGwError } from "../../errors/gw-error.ts";

export function sharedRead<T>(read: Promise<T>): Promise<T> {
  return read.catch((err: unknown) => {
    throw err instanceof Error && err.name === "StoreUnavailable" ? toGwError(err) : err;
  });
}
