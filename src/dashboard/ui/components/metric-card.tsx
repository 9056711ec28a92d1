// One number with its label. The element carrying `data-metric` holds the bare number only (the unit
// sits beside it) and `data-value` the API's exact value, so tests can read either.
import type { ComponentChildren } from "preact";
import "../styles/overview.css";

export interface MetricCardProps {
  label: string;
  /** The contract's name (`requests`, `p95`, ...); omitted for cards the contract does not name. */
  metric?: string;
  /** The formatted number. */
  text: string;
  /** The API's value, for `data-value`. */
  value?: number | null;
  /** Before the number (`$`). */
  prefix?: string;
  /** After the number (`ms`, `%`). */
  unit?: string;
  /** A second line (`p95 120 ms`, `exact 3% · semantic 1%`). */
  children?: ComponentChildren;
}

export function MetricCard({ label, metric, text, value, prefix, unit, children }: MetricCardProps) {
  return (
    <div class="card metric-card">
      <div class="label">{label}</div>
      {/* Long numbers (sub-cent costs) take a smaller size rather than overflow the card. */}
      <div class={text.length > 8 ? "value value-long" : "value"}>
        {prefix ? <span class="metric-unit">{prefix}</span> : null}
        <span class="metric-value" data-metric={metric} data-value={value === null || value === undefined ? undefined : String(value)}>
          {text}
        </span>
        {unit && value !== null ? <span class="metric-unit"> {unit}</span> : null}
      </div>
      {children ? <div class="metric-sub">{children}</div> : null}
    </div>
  );
}

export function MetricGrid({ children, label }: { children: ComponentChildren; label: string }) {
  return (
    <section class="cards metric-grid" aria-label={label}>
      {children}
    </section>
  );
}
