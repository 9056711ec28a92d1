// Placeholder until its page lands (docs/dashboard.md "Pages").
export function ProjectsPage() {
  return <h1>Projects</h1>;
}
