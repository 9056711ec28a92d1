// Small helpers shared by the flow tests: reading an SSE body into its data lines, and reading a
// request's log row and trace (GET /requests/{id}). Waiting for a condition: wait-for.ts.

/** The `data:` payloads of an SSE body, in order (the final `[DONE]` included). */
export async function sseData(res: Response): Promise<string[]> {
  const text = await res.text();
  const out: string[] = [];
  for (const frame of text.split("\n\n")) {
    for (const line of frame.split("\n")) if (line.startsWith("data: ")) out.push(line.slice(6));
  }
  return out;
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
