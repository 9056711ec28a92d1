// Recommendations (/recommendations): the rule in one sentence, then cheaper models with enough
// evidence (ratings, lower confidence bound against the current mean, cost) and the semantic cache.
import { getJson } from "../api.ts";
import { useLoad } from "../components/load.tsx";
import { count, dollars, fraction } from "../format.ts";
import { query } from "../router.ts";
import type { CheaperModelRecommendation, RecommendationList, SemanticCacheRecommendation } from "../types.ts";
import "../styles/overview.css";

export function RecommendationsPage() {
  const project = query.value.get("project");
  const res = useLoad(() => getJson<RecommendationList>("/recommendations", { project }), `${project}`);
  const r = res.data;
  const cheaper = r?.data.filter((x): x is CheaperModelRecommendation => x.kind === "cheaper_model") ?? [];
  const cache = r?.data.filter((x): x is SemanticCacheRecommendation => x.kind === "enable_semantic_cache") ?? [];
  return (
    <>
      <h1>Recommendations</h1>
      {res.error ? <p role="alert" class="alert">{res.error}</p> : null}
      {res.loading && !r ? <p class="loading">Loading recommendations…</p> : null}
      {r ? (
        <>
          <p class="panel rule">
            <strong>The rule:</strong> {r.rule}
          </p>
          {r.data.length === 0 ? <p class="empty panel">No recommendation: not enough evidence yet.</p> : null}
          {cheaper.length > 0 ? <CheaperModels rows={cheaper} /> : null}
          {cache.map((c, i) => (
            <SemanticCache key={i} r={c} />
          ))}
        </>
      ) : null}
    </>
  );
}

/** Ratings are 1 to 5 (POST /v1/requests/{id}/feedback); means and bounds to two decimals. */
const rating = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "–");

function CheaperModels({ rows }: { rows: CheaperModelRecommendation[] }) {
  return (
    <section class="rec-cheaper">
      <h2>Cheaper models</h2>
      <div class="table-wrap">
        <table class="rec-table">
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Current → candidate</th>
              <th scope="col" class="num">Ratings</th>
              <th scope="col" class="num">Candidate rating: lower bound / mean</th>
              <th scope="col" class="num">Current mean rating</th>
              <th scope="col" class="num">Cost per request</th>
              <th scope="col" class="num">Monthly saving</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((x) => (
              <tr key={`${x.task}|${x.current_model}|${x.candidate_model}`}>
                <td>{x.task}</td>
                <td>
                  <span class="mono">{x.current_model}</span> →<br />
                  <span class="mono">{x.candidate_model}</span>
                </td>
                <td class="num">{count(x.ratings)}</td>
                <td class="num">
                  {rating(x.candidate_lcb)} / {rating(x.candidate_mean)}
                </td>
                <td class="num">{rating(x.current_mean)}</td>
                <td class="num">
                  {dollars(x.current_cost_per_request)} → {dollars(x.candidate_cost_per_request)}
                </td>
                <td class="num">
                  <strong>{dollars(x.monthly_saving_usd)}</strong>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function SemanticCache({ r }: { r: SemanticCacheRecommendation }) {
  return (
    <section class="panel">
      <h2 class="panel-title">Turn on the semantic cache</h2>
      <p>
        {fraction(r.exact_repeat_share)} of the last 30 days' {count(r.requests_30d)} requests were exact repeats answered from
        the cache, and the semantic cache (near-repeats) is off. Estimated monthly saving:{" "}
        <strong>{dollars(r.estimated_monthly_saving_usd)}</strong>.
      </p>
    </section>
  );
}
