// The trace as a waterfall: one row per span with its name, status, error code and a bar placed
// by start and duration relative to the request. Rows are built in one pass and virtualised.
import { useMemo } from "preact/hooks";
import type { TraceSpan } from "../types.ts";
import { VirtualList } from "./virtual-list.tsx";
import { duration } from "./load.tsx";

const ROW_HEIGHT = 28;

interface Row {
  name: string;
  detail: string;
  error: string | null;
  start: number;
  duration: number;
}

/** One pass: each span's row, and the end of the latest span (the request's own span, normally). */
function build(spans: TraceSpan[]): { rows: Row[]; total: number } {
  const rows: Row[] = new Array(spans.length);
  let total = 0;
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i]!;
    const a = s.attributes;
    rows[i] = {
      name: s.name,
      // An llm span says which model it called and which attempt it was.
      detail: a ? [a.model, a.attempt !== undefined && a.attempt !== null ? `attempt ${a.attempt}` : null].filter((x) => x !== null && x !== undefined).join(", ") : "",
      error: s.status === "error" ? (s.error_code ?? "error") : null,
      start: s.start_ms,
      duration: s.duration_ms,
    };
    if (s.start_ms + s.duration_ms > total) total = s.start_ms + s.duration_ms;
  }
  return { rows, total };
}

export function Waterfall({ spans }: { spans: TraceSpan[] }) {
  const { rows, total } = useMemo(() => build(spans), [spans]);
  const scale = total > 0 ? 100 / total : 0;
  const renderRow = (i: number) => {
    const r = rows[i]!;
    const left = r.start * scale;
    const width = Math.max(r.duration * scale, 0.3);
    return (
      <div class={r.error ? "span-row error" : "span-row"}>
        <span class="span-name" title={r.name}><span>{r.name}</span>{r.detail && <small> {r.detail}</small>}</span>
        <span class="span-status">{r.error ?? "ok"}</span>
        <span class="span-track" aria-hidden="true">
          <span class="span-bar" style={{ left: `${Math.min(left, 99.7)}%`, width: `${Math.min(width, 100 - Math.min(left, 99.7))}%` }} />
        </span>
        <span class="span-time">{duration(r.start)} + {duration(r.duration)}</span>
      </div>
    );
  };
  return (
    <div class="waterfall">
      <p class="muted span-count">{rows.length.toLocaleString("en-US")} spans over {duration(total)}; only the rows in view are drawn.</p>
      <div class="span-row span-head" aria-hidden="true">
        <span class="span-name">Span</span>
        <span class="span-status">Status</span>
        <span class="span-track span-axis"><span>0</span><span>{duration(total / 2)}</span><span>{duration(total)}</span></span>
        <span class="span-time">Start + duration</span>
      </div>
      <VirtualList count={rows.length} rowHeight={ROW_HEIGHT} maxHeight={ROW_HEIGHT * 16} label={`Trace spans (${rows.length})`} renderRow={renderRow} />
    </div>
  );
}
