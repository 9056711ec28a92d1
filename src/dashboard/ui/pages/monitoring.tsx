// Placeholder until its page lands (docs/dashboard.md "Pages").
export function MonitoringPage() {
  return <h1>Monitoring</h1>;
}
