// trace.reasons as the request path records them (compact notes) and as a trace is read (sentences,
// built from the notes and trace.candidates); docs/observability.md "Trace storage".

/** One reason: a sentence already made (a billing note), or a code and its values. */
export type ReasonNote =
  | string
  /** required quality, the task it is for, the mode or profile, the complexity */
  | readonly ["q", number, string, string, string]
  /** the workload, then the weights of quality, cost and latency */
  | readonly ["w", string, number, number, number]
  /** the exclusion summary of the trace's own candidates */
  | readonly ["x"]
  /** the session kept on this model */
  | readonly ["s", string];

interface Excludable {
  excluded?: unknown;
}

/** "12 excluded: provider x not enabled" lines, most common first (trace.reasons, 503 messages). */
export function exclusionSummary(candidates: readonly unknown[]): string[] {
  const counts = new Map<string, number>();
  for (const c of candidates) {
    const excluded = (c as Excludable | null)?.excluded;
    if (typeof excluded !== "string" || !excluded) continue;
    const why = excluded.replace(/^provider \S+ /, "provider ").replace(/\$[\d.e-]+/g, "$…");
    counts.set(why, (counts.get(why) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([why, n]) => `${n} excluded: ${why}`);
}

/** The sentences of `notes`, in order; `candidates` are the same trace's. */
export function reasonSentences(notes: readonly unknown[], candidates: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const n of notes) {
    if (!Array.isArray(n)) out.push(n as string);
    else if (n[0] === "q") out.push(`required quality ${n[1]} for ${n[2]} (${n[3]}, ${n[4]} complexity)`);
    else if (n[0] === "w") out.push(`weights from the ${n[1]} workload: quality ${n[2]}, cost ${n[3]}, latency ${n[4]}`);
    else if (n[0] === "x") out.push(...exclusionSummary(candidates));
    else if (n[0] === "s") out.push(`session kept on ${n[1]}`);
    // A code this version does not know reads as its data rather than being lost.
    else out.push(JSON.stringify(n));
  }
  return out;
}

/** The trace's `reasons` on the request path: the notes, turned into sentences only when the trace
 * is serialised as is (JSON.stringify calls toJSON); the trace codec stores the notes. */
export class TraceReasons {
  constructor(
    readonly notes: readonly ReasonNote[],
    readonly candidates: readonly unknown[],
  ) {}

  toJSON(): string[] {
    return reasonSentences(this.notes, this.candidates);
  }
}

/** The notes of a trace's `reasons` value: a TraceReasons (or its structured clone, which keeps its
 * fields and loses its class), else the value itself (sentences). */
export function reasonNotesOf(v: unknown): unknown {
  if (typeof v === "object" && v !== null && !Array.isArray(v) && Array.isArray((v as { notes?: unknown }).notes)) {
    return (v as { notes: unknown[] }).notes;
  }
  return v;
}
