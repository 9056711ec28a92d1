// The period chooser of Overview and Cache: links 1h/24h/7d/30d that set `?period=` (shareable URL);
// the app's link handler navigates in place, without a reload.
import { href, path } from "../router.ts";

export const PERIODS = ["1h", "24h", "7d", "30d"] as const;
export type Period = (typeof PERIODS)[number];

/** The period in the URL, 24h when absent or unknown (the API's default). */
export function currentPeriod(q: URLSearchParams): Period {
  const p = q.get("period");
  return PERIODS.find((x) => x === p) ?? "24h";
}

export function PeriodPicker({ value }: { value: Period }) {
  const pathname = path.value;
  return (
    <nav class="period-picker" aria-label="Period">
      {PERIODS.map((p) => (
        <a
          key={p}
          href={href(pathname, { period: p })}
          class={p === value ? "period active" : "period"}
          aria-current={p === value ? "true" : undefined}
        >
          {p}
        </a>
      ))}
    </nav>
  );
}
