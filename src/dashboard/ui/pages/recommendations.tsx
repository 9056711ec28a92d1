// Placeholder until its page lands (docs/dashboard.md "Pages").
export function RecommendationsPage() {
  return <h1>Recommendations</h1>;
}
