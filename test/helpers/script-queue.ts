// What every scripted upstream (OpenAI, Anthropic, Gemini) shares: the queue of scripted replies
// (each for the next N requests) and a delay that ends early when the client goes away.

export class ScriptQueue<R> {
  private scripts: Array<{ reply: R; left: number }> = [];

  /** The next `times` requests get this reply. */
  push(reply: R, times = 1): void {
    if (times > 0) this.scripts.push({ reply, left: times });
  }

  /** The reply for this request, if one is scripted. */
  next(): R | undefined {
    const head = this.scripts[0];
    if (head === undefined) return undefined;
    if (--head.left <= 0) this.scripts.shift();
    return head.reply;
  }

  clear(): void {
    this.scripts.length = 0;
  }
}

/** Resolves true when the time ran out, false when the client went away first. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
