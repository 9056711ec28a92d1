// Small helpers shared by the flow tests: reading an SSE body into its data lines, and awaiting a
// condition with a bounded poll instead of a fixed sleep.

/** The `data:` payloads of an SSE body, in order (the final `[DONE]` included). */
export async function sseData(res: Response): Promise<string[]> {
  const text = await res.text();
  const out: string[] = [];
  for (const frame of text.split("\n\n")) {
    for (const line of frame.split("\n")) if (line.startsWith("data: ")) out.push(line.slice(6));
  }
  return out;
}

/** Polls `cond` every few milliseconds until it holds or `ms` run out; returns whether it held. */
export async function waitFor(cond: () => boolean | Promise<boolean>, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await cond()) return true;
    await Bun.sleep(5);
  }
  return cond();
}

export interface LogDetail {
  request_id: string;
  provider: string | null;
  selected_model: string | null;
  status: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  ttft_ms: number | null;
  fallbacks: number;
  error: { code: string; message: string } | null;
  error_category: string | null;
  trace: {
    spans: Array<{ name: string; status: string; error_code: string | null; attributes?: Record<string, unknown> }>;
    attempts: Array<{ model: string; provider: string; status: string; error_code: string | null; upstream_status: number | null; failure_class: string | null; duration_ms: number }>;
    candidates: Array<{ model: string; provider: string; rank: number | null; excluded?: string }>;
    usage_estimated: boolean;
    client_disconnected: boolean;
    error: Record<string, unknown> | null;
  };
}

/** GET /requests/{id} with a key holding the `requests` scope. */
export async function requestDetail(baseUrl: string, key: string, id: string): Promise<{ status: number; body: LogDetail }> {
  const res = await fetch(`${baseUrl}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as LogDetail };
}
