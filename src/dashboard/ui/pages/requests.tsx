// Placeholder until its page lands (docs/dashboard.md "Pages").
export function RequestsPage() {
  return <h1>Requests</h1>;
}
