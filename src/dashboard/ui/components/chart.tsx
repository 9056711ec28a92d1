// A time-series chart (uPlot, drawn on a canvas) with an accessible name and a text fallback: the
// same numbers as a table under a disclosure, so the chart never holds information only in pixels.
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import "../styles/charts.css";
import { bucketTime, count, dollars, ms } from "../format.ts";

export type ChartUnit = "count" | "ms" | "usd" | "pct";

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** Overrides the palette (errors in reds). */
  color?: string;
}

export interface ChartProps {
  title: string;
  /** Bucket starts, epoch ms. */
  times: number[];
  bucketMs: number;
  series: ChartSeries[];
  unit: ChartUnit;
  /** Areas stacked on each other (their sum is the top line) instead of lines. */
  stacked?: boolean;
  /** Lines against a second axis on the right (errors beside requests); never stacked. */
  right?: { label: string; unit: ChartUnit; series: ChartSeries[] };
  /** Nothing to draw (no traffic): `emptyText` instead of the chart and its table. */
  empty?: boolean;
  emptyText?: string;
  height?: number;
}

/** Distinct on light and dark backgrounds; the nth series takes the nth colour. */
const PALETTE = ["#2f6fdf", "#d9480f", "#2b8a3e", "#ae3ec9", "#e67700", "#0c8599", "#c92a2a", "#5c940d", "#862e9c", "#495057"];
export const seriesColor = (i: number): string => PALETTE[i % PALETTE.length]!;
/** For error categories: warm colours only, so errors never look like traffic. */
const ERROR_PALETTE = ["#c92a2a", "#e67700", "#a61e4d", "#d9480f", "#862e9c", "#f08c00", "#e03131", "#5f3dc4"];
export const errorColor = (i: number): string => ERROR_PALETTE[i % ERROR_PALETTE.length]!;

export function formatUnit(unit: ChartUnit, v: number | null | undefined): string {
  if (v === null || v === undefined) return "–";
  if (unit === "ms") return `${ms(v)} ms`;
  if (unit === "usd") return dollars(v);
  if (unit === "pct") return `${Math.round(v * 10) / 10}%`;
  return count(v);
}

/** Cumulative sums, bottom series first: what a stacked area chart draws. */
function stack(series: ChartSeries[]): number[][] {
  const out: number[][] = [];
  series.forEach((s, i) => {
    const below = out[i - 1];
    out.push(s.values.map((v, j) => (v ?? 0) + (below ? below[j]! : 0)));
  });
  return out;
}

/** An opaque tint of a #rrggbb colour (stacked areas must not blend into each other). */
function tint(hex: string, amount = 0.55): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const mix = (c: number) => Math.round(c + (255 - c) * amount);
  return `rgb(${mix(n >> 16)}, ${mix((n >> 8) & 255)}, ${mix(n & 255)})`;
}

const colorOf = (s: ChartSeries, i: number) => s.color ?? seriesColor(i);

/** A value with no neighbour draws no line: such series show their points. */
const isolated = (values: (number | null)[]) =>
  values.some((v, j) => v !== null && (values[j - 1] ?? null) === null && (values[j + 1] ?? null) === null);

/** Counts tick at whole numbers only (no "0.5 requests"). */
const COUNT_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7];

function options(props: ChartProps, width: number, color: string): uPlot.Options {
  const { series, unit, stacked } = props;
  const right = props.right;
  // Stacked: draw the tallest cumulative area first so each lower one paints over it.
  const order = stacked ? series.map((_, i) => i).reverse() : series.map((_, i) => i);
  const axis: uPlot.Axis = { stroke: color, grid: { stroke: "rgba(128,128,128,0.2)" }, ticks: { stroke: "rgba(128,128,128,0.3)" } };
  // Wide enough for the longest tick label ("2,000 ms", "$0.0125") at the 12px axis font.
  const size = (_u: uPlot, values: string[] | null) => 26 + 7.5 * Math.max(3, ...(values ?? []).map((v) => v.length));
  const range: uPlot.Scale.Range = (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.05 : 1];
  const incrs = (u: ChartUnit) => (u === "count" ? { incrs: COUNT_INCRS } : {});
  const axes: uPlot.Axis[] = [axis, { ...axis, ...incrs(unit), size, values: (_u, splits) => splits.map((v) => formatUnit(unit, v)) }];
  if (right) {
    axes.push({
      ...axis, ...incrs(right.unit), scale: "r", side: 1, grid: { show: false }, size, label: right.label,
      values: (_u, splits) => splits.map((v) => formatUnit(right.unit, v)),
    });
  }
  const line = (s: ChartSeries, i: number, scale: string, u: ChartUnit): uPlot.Series => ({
    label: s.label,
    scale,
    stroke: colorOf(s, i),
    width: 1.5,
    fill: stacked && scale === "y" ? tint(colorOf(s, i)) : undefined,
    points: { show: isolated(s.values), size: 6 },
    // The legend shows each series' own value, not the cumulative one a stack draws.
    value: (_u, _v, _si, idx) => (idx === null ? "–" : formatUnit(u, s.values[idx])),
  });
  return {
    width,
    height: props.height ?? 220,
    cursor: { drag: { x: false, y: false } },
    scales: { y: { range }, r: { range } },
    axes,
    series: [
      { label: "Time", value: (_u, v) => (v === null ? "–" : bucketTime(v * 1000, props.bucketMs)) },
      ...order.map((i) => line(series[i]!, i, "y", unit)),
      ...(right?.series ?? []).map((s, i) => line(s, series.length + i, "r", right!.unit)),
    ],
  };
}

function data(props: ChartProps): uPlot.AlignedData {
  const xs = props.times.map((t) => t / 1000);
  const ys = props.stacked ? stack(props.series).reverse() : props.series.map((s) => s.values);
  return [xs, ...ys, ...(props.right?.series ?? []).map((s) => s.values)];
}

export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const empty = props.empty === true || props.times.length === 0 || props.series.length === 0;

  useEffect(() => {
    const el = box.current;
    if (!el || empty) return;
    const plot = new uPlot(options(props, Math.max(200, el.clientWidth), getComputedStyle(el).color), data(props), el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: props.height ?? 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [props.times, props.series, props.right, props.unit, props.stacked, empty]);

  return (
    <figure class="chart">
      <figcaption class="chart-title">{props.title}</figcaption>
      {empty ? (
        <p class="chart-empty">{props.emptyText ?? "No requests in this period"}</p>
      ) : (
        <>
          <div class="chart-canvas" ref={box} role="img" aria-label={`${props.title}: chart of ${columns(props).map((c) => c.s.label).join(", ")}; the table below has its numbers`} />
          <ChartTable {...props} />
        </>
      )}
    </figure>
  );
}

/** The text fallback: one row per bucket, one column per series. */
/** Every series with its unit, left axis first: the table's columns. */
const columns = (p: ChartProps) => [
  ...p.series.map((s) => ({ s, unit: p.unit })),
  ...(p.right?.series ?? []).map((s) => ({ s, unit: p.right!.unit })),
];

function ChartTable(props: ChartProps) {
  const { title, times, bucketMs } = props;
  const cols = columns(props);
  return (
    <details class="chart-fallback">
      <summary>Table: {title}</summary>
      <div class="chart-table-wrap">
        <table class="chart-table">
          <thead>
            <tr>
              <th scope="col">Time</th>
              {cols.map(({ s }) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {times.map((t, j) => (
              <tr key={t}>
                <th scope="row">{bucketTime(t, bucketMs)}</th>
                {cols.map(({ s, unit }) => (
                  <td key={s.label}>{formatUnit(unit, s.values[j])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
