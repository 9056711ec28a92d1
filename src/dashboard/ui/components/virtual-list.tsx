// A list that renders only the rows in view (fixed row height), so a trace of thousands of spans
// costs the DOM a screenful of rows (docs/dashboard.md "Pages").
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

interface Props {
  count: number;
  rowHeight: number;
  /** Most pixels the list takes before it scrolls. */
  maxHeight: number;
  label: string;
  renderRow: (index: number) => ComponentChildren;
  /** Rows rendered above and below the visible ones, so fast scrolling shows no gap. */
  overscan?: number;
}

export function VirtualList({ count, rowHeight, maxHeight, label, renderRow, overscan = 8 }: Props) {
  const [scrollTop, setScrollTop] = useState(0);
  const total = count * rowHeight;
  const height = Math.min(total, maxHeight);
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  const rows: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div
        key={i}
        role="listitem"
        aria-setsize={count}
        aria-posinset={i + 1}
        class="vrow"
        style={{ top: `${i * rowHeight}px`, height: `${rowHeight}px` }}
      >
        {renderRow(i)}
      </div>,
    );
  }
  return (
    <div
      class="vlist"
      role="list"
      aria-label={label}
      tabIndex={0}
      style={{ height: `${height}px` }}
      onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}
    >
      <div class="vlist-inner" style={{ height: `${total}px` }}>{rows}</div>
    </div>
  );
}
