// Placeholder until its page lands (docs/dashboard.md "Pages").
export function CachePage() {
  return <h1>Cache</h1>;
}
