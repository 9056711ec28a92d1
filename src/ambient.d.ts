// Files imported as text (`with { type: "text" }`), so migrations ship inside the compiled binary.
declare module "*.sql" {
  const text: string;
  export default text;
}
