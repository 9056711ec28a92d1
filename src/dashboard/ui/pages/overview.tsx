// Placeholder until its page lands (docs/dashboard.md "Pages").
export function OverviewPage() {
  return <h1>Overview</h1>;
}
