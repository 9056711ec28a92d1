// Waiting for what a test cannot await (a row written off the request path, a client's abort seen
// upstream): a bounded poll, never a fixed sleep.

export interface WaitOptions {
  /** How long to poll before giving up (default 3000 ms). */
  timeoutMs?: number;
  /** What is awaited, for the error when it never comes. */
  what?: string;
}

/** Polls `cond` every few ms; resolves `true` once it holds, throws once `timeoutMs` run out. */
export async function waitFor(cond: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<true> {
  const timeoutMs = options.timeoutMs ?? 3000;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await cond()) return true;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? "a condition"}`);
    await Bun.sleep(5);
  }
}
