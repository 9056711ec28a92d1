// Catching the UpstreamFailure an adapter throws (sync mapping) or rejects with (async call), so a
// test can assert its class, status and code; anything else fails the test.
import { UpstreamFailure } from "../../src/canonical/failure.ts";

export function failureOf(fn: () => unknown): UpstreamFailure {
  try {
    fn();
  } catch (err) {
    if (err instanceof UpstreamFailure) return err;
    throw err;
  }
  throw new Error("expected an UpstreamFailure");
}

export async function rejection(p: Promise<unknown>): Promise<UpstreamFailure> {
  const err = await p.then(() => null, (e: unknown) => e);
  if (!(err instanceof UpstreamFailure)) throw new Error(`expected an UpstreamFailure, got ${String(err)}`);
  return err;
}
