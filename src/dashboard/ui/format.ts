// How the dashboard writes numbers: one place, so cards, tables and chart axes agree. Metric cards
// show the bare number (unit beside it), so a reader or a test sees what GET /v1/metrics said.

const DASH = "–";

/** An integer count with thousands separators (tables, not metric cards). */
export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? DASH : Math.round(n).toLocaleString("en-US");
}

/** A percentage already in percent (the API's 0..100), at most 3 decimals as the API rounds it. */
export function pct(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH;
  return String(Math.round(n * 1000) / 1000);
}

/** Milliseconds, as the API gives them (rounded to 0.1 ms below 10 ms, else whole). */
export function ms(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH;
  return n < 10 ? String(Math.round(n * 10) / 10) : String(Math.round(n));
}

/** US dollars without the sign, as exact as the API's (1e-10, gw.cost's basis): metric cards show
 * the number GET /v1/metrics gives, sub-cent request costs included. */
export function usd(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH;
  const s = String(n);
  // String() switches to exponent notation below 1e-6; write those out.
  return s.includes("e") ? n.toFixed(10).replace(/\.?0+$/, "") : s;
}

/** US dollars with the sign, for tables and sentences: cents from $0.10, two significant digits below. */
export function dollars(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH;
  if (n === 0) return "$0";
  return Math.abs(n) >= 0.1 ? `$${n.toFixed(2)}` : `$${Number(n.toPrecision(2))}`;
}

/** Bytes in binary units (KiB, MiB, GiB). */
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH;
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** A short local time for a bucket start; the day too when the bucket is a day or longer. */
export function bucketTime(t: number, bucketMs: number): string {
  const d = new Date(t);
  const hm = d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  const day = d.toLocaleDateString("en-GB", { day: "2-digit", month: "short" });
  if (bucketMs >= 86_400_000) return day;
  return bucketMs >= 3_600_000 ? `${day} ${hm}` : hm;
}

/** A 0..1 fraction as a percentage with one decimal (ratings, shares). */
export function fraction(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH;
  return `${Math.round(n * 1000) / 10}%`;
}
