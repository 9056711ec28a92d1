// The Requests page's filters (docs/dashboard.md "Pages"): read from the URL, written back to it by
// `Apply filters`, so a filtered view can be shared. Times are shown local, kept in the URL as ISO.
import { query, setQuery } from "../router.ts";
import { Options } from "./load.tsx";

export const FILTER_KEYS = [
  "model", "status", "workflow_id", "trace_id", "provider", "cache", "error_category", "tag", "task", "from", "to", "test",
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

const ERROR_CATEGORIES = [
  "VALIDATION_FAILED", "AUTHENTICATION", "PERMISSION_DENIED", "POLICY_BLOCKED", "BUDGET_EXCEEDED",
  "INSUFFICIENT_CREDITS", "PLAN_LIMIT", "MODEL_NOT_FOUND", "NOT_FOUND", "CONFLICT", "IDEMPOTENCY_MISMATCH",
  "RATE_LIMIT", "NO_MODEL_AVAILABLE", "PROVIDER_UNAVAILABLE", "UPSTREAM_ERROR", "TIMEOUT", "INTERNAL",
];

/** The filters the URL holds now, empty ones left out. */
export function currentFilters(q: URLSearchParams = query.value): Partial<Record<FilterKey, string>> {
  const out: Partial<Record<FilterKey, string>> = {};
  for (const k of FILTER_KEYS) {
    const v = q.get(k);
    if (v) out[k] = v;
  }
  return out;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** ISO or ms from the URL -> the value a datetime-local input shows (local time). */
function toLocalInput(v: string | null): string {
  if (!v) return "";
  const d = new Date(/^\d+$/.test(v) ? Number(v) : v);
  if (Number.isNaN(d.getTime())) return "";
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(v: string): string | null {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

function Text({ name, label, placeholder }: { name: FilterKey; label: string; placeholder?: string }) {
  return (
    <label class="filter">
      <span>{label}</span>
      <input name={name} type="text" defaultValue={query.value.get(name) ?? ""} placeholder={placeholder} autocomplete="off" />
    </label>
  );
}

function Choice({ name, label, options }: { name: FilterKey; label: string; options: [string, string][] }) {
  return (
    <label class="filter">
      <span>{label}</span>
      {/* aria-label: the wrapping label would put every option in the accessible name. */}
      <select name={name} aria-label={label}>
        <Options list={[["", "Any"], ...options]} current={query.value.get(name) ?? ""} />
      </select>
    </label>
  );
}

function When({ name, label }: { name: "from" | "to"; label: string }) {
  return (
    <label class="filter">
      <span>{label}</span>
      <input name={name} type="datetime-local" defaultValue={toLocalInput(query.value.get(name))} />
    </label>
  );
}

export function FilterForm() {
  const onSubmit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const next: Record<string, string | null> = { after: null };
    for (const k of FILTER_KEYS) {
      const raw = String(form.get(k) ?? "").trim();
      next[k] = k === "from" || k === "to" ? fromLocalInput(raw) : raw || null;
    }
    setQuery(next);
  };
  const onClear = () => setQuery(Object.fromEntries([...FILTER_KEYS, "after"].map((k) => [k, null])));
  // Keyed by the query so that back/forward and trace-id links refill the inputs.
  return (
    <form class="filters" key={query.value.toString()} onSubmit={onSubmit} aria-label="Filters">
      <Text name="model" label="Model" placeholder="openai/gpt-4o-mini" />
      <Text name="status" label="Status" placeholder="200" />
      <Text name="workflow_id" label="Workflow" />
      <Text name="trace_id" label="Trace id" />
      <Text name="provider" label="Provider" />
      <Choice name="cache" label="Cache" options={[["exact", "Exact hit"], ["semantic", "Semantic hit"], ["miss", "Miss"]]} />
      <Choice name="error_category" label="Error category" options={ERROR_CATEGORIES.map((c) => [c, c])} />
      <Text name="tag" label="Tag" />
      <Text name="task" label="Task" />
      <When name="from" label="From" />
      <When name="to" label="To" />
      <Choice name="test" label="Mode" options={[["false", "Live only"], ["true", "Test only"]]} />
      <div class="filter-actions">
        <button type="submit" class="btn btn-primary">Apply filters</button>
        <button type="button" class="btn btn-quiet" onClick={onClear}>Clear filters</button>
      </div>
    </form>
  );
}
