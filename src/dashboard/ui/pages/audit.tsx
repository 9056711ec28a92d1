// Placeholder until its page lands (docs/dashboard.md "Pages").
export function AuditPage() {
  return <h1>Audit log</h1>;
}
