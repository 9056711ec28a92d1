// Cache (/cache): hit rate over time (exact vs semantic), dollars and tokens saved, top miss reasons,
// entries and bytes; Empty cache (after a confirmation) and invalidation by tag, both needing scope `cache`.
import { useMemo, useState } from "preact/hooks";
import { ApiError, getJson, send, session } from "../api.ts";
import { Chart } from "../components/chart.tsx";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { useLoad } from "../components/load.tsx";
import { MetricCard, MetricGrid } from "../components/metric-card.tsx";
import { currentPeriod, PeriodPicker } from "../components/period-picker.tsx";
import { bytes, count, pct, usd } from "../format.ts";
import { query } from "../router.ts";
import type { CacheInvalidation, CacheView } from "../types.ts";
import "../styles/cache.css";
import "../styles/overview.css";

export function CachePage() {
  const period = currentPeriod(query.value);
  const project = query.value.get("project");
  const res = useLoad(() => getJson<CacheView>("/cache", { period, project }), `${project}|${period}`);
  const c = res.data;
  return (
    <>
      <div class="page-head">
        <h1>Cache</h1>
        <PeriodPicker value={period} />
      </div>
      {res.error ? <p role="alert" class="alert">{res.error}</p> : null}
      {res.loading && !c ? <p class="loading">Loading the cache…</p> : null}
      {c ? <CacheBody c={c} /> : null}
      <CacheActions project={project} onDone={res.reload} />
    </>
  );
}

function CacheBody({ c }: { c: CacheView }) {
  const series = useMemo(() => {
    const pts = c.series.points;
    const rate = (n: number, of: number) => (of === 0 ? 0 : (n / of) * 100);
    return {
      times: pts.map((p) => p.t),
      rates: [
        { label: "Exact", values: pts.map((p) => rate(p.exact, p.requests)) },
        { label: "Semantic", values: pts.map((p) => rate(p.semantic, p.requests)) },
      ],
    };
  }, [c]);
  const noTraffic = c.series.points.every((p) => p.requests === 0);
  return (
    <>
      {c.enabled ? (
        <p class="muted">Cache mode: {(c.mode ?? "on").replace("+", " and ")}.</p>
      ) : (
        <p class="cache-off panel">Cache is off for this project: requests are neither answered from nor stored in it.</p>
      )}
      <MetricGrid label="Cache numbers">
        {c.enabled ? (
          <>
            <MetricCard label="Hit rate" metric="cache_hit_rate" text={pct(c.hit_rate)} value={c.hit_rate} unit="%">
              {count(c.hits)} hits
            </MetricCard>
            <MetricCard label="Exact hits" text={count(c.exact)} value={c.exact} />
            <MetricCard label="Semantic hits" text={count(c.semantic)} value={c.semantic} />
          </>
        ) : null}
        <MetricCard label="Saved" text={usd(c.saved_usd)} value={c.saved_usd} prefix="$" />
        <MetricCard label="Tokens saved" text={count(c.saved_tokens)} value={c.saved_tokens} />
        <MetricCard label="Entries" text={count(c.entries)} value={c.entries}>
          {bytes(c.bytes)}
        </MetricCard>
      </MetricGrid>
      <div class="chart-grid">
        {c.enabled ? (
          <Chart title="Hit rate over time, exact and semantic" times={series.times} bucketMs={c.series.bucket_ms} series={series.rates} unit="pct" stacked empty={noTraffic} />
        ) : null}
        <MissReasons reasons={c.miss_reasons} />
      </div>
    </>
  );
}

function MissReasons({ reasons }: { reasons: CacheView["miss_reasons"] }) {
  const total = reasons.reduce((a, r) => a + r.count, 0);
  return (
    <section class="panel">
      <h2 class="panel-title">Top miss reasons</h2>
      <p class="muted small">Over the newest 5,000 traced requests.</p>
      {reasons.length === 0 ? (
        <p class="empty">No misses recorded.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Reason</th>
              <th scope="col" class="num">Requests</th>
              <th scope="col" class="num">Share</th>
            </tr>
          </thead>
          <tbody>
            {reasons.map((r) => (
              <tr key={r.reason}>
                <td class="mono">{r.reason}</td>
                <td class="num">{count(r.count)}</td>
                <td class="num">{pct(total === 0 ? 0 : Math.round((r.count / total) * 1000) / 10)}%</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const errorText = (e: unknown) => (e instanceof ApiError || e instanceof Error ? e.message : "The gateway did not answer.");

/** Empty cache and invalidate by tag; the result (or the error) is announced in a live region. */
function CacheActions({ project, onDone }: { project: string | null; onDone: () => void }) {
  const allowed = session.value?.scopes.includes("cache") ?? false;
  const denied = allowed ? undefined : "Needs a key with scope cache";
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [tags, setTags] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);

  async function run(path: string, body: object): Promise<void> {
    setBusy(true);
    setDone(null);
    setFailed(null);
    try {
      const r = await send<CacheInvalidation>("POST", path, body, { project });
      setDone(`Deleted ${r.deleted} cached ${r.deleted === 1 ? "answer" : "answers"}`);
      onDone();
    } catch (e) {
      setFailed(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  const tagList = tags.split(",").map((t) => t.trim()).filter((t) => t !== "");
  return (
    <section class="panel cache-actions" aria-labelledby="cache-actions-title">
      <h2 id="cache-actions-title" class="panel-title">Remove cached answers</h2>
      <div class="cache-actions-row">
        <button type="button" class="btn btn-danger" disabled={!allowed || busy} title={denied} onClick={() => setConfirming(true)}>
          Empty cache
        </button>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (tagList.length > 0) void run("/cache/invalidate", { tags: tagList });
          }}
        >
          <label class="row">
            Tags
            <input name="tags" value={tags} placeholder="tag-a, tag-b" disabled={!allowed} title={denied} onInput={(e) => setTags(e.currentTarget.value)} />
          </label>
          <button type="submit" class="btn" disabled={!allowed || busy || tagList.length === 0} title={denied}>
            Invalidate
          </button>
        </form>
      </div>
      {allowed ? null : <p class="muted small">Removing cached answers needs a key with scope cache.</p>}
      <div role="status">{done ? <p class="status">{done}</p> : null}</div>
      {failed ? <p role="alert" class="alert">{failed}</p> : null}
      <ConfirmDialog
        open={confirming}
        title="Empty the cache?"
        confirmLabel="Empty"
        danger
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          void run("/cache/empty", {});
        }}
      >
        <p>Every cached answer of this project is deleted, exact and semantic. The next requests go to the models.</p>
      </ConfirmDialog>
    </section>
  );
}
