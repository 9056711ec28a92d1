// Placeholder until its page lands (docs/dashboard.md "Pages").
export function RequestDetailPage({ requestId }: { requestId: string }) {
  return <h1>{requestId}</h1>;
}
