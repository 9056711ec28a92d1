// Which environment variables enable a catalog provider (docs/providers.md "Enabling a provider"),
// for the messages that say a provider is off.
import { KEYED_PROVIDERS, LOCAL_PROVIDERS } from "./env.ts";

/** `OPENAI_API_KEY`, `GEMINI_API_KEY` (Google's models), `OLLAMA_BASE_URL`...; null when gw has no adapter for it. */
export function enablingVariables(provider: string): string | null {
  const name = provider === "google" ? "gemini" : provider;
  if ((KEYED_PROVIDERS as readonly string[]).includes(name)) return `${name.toUpperCase()}_API_KEY`;
  if ((LOCAL_PROVIDERS as readonly string[]).includes(name)) return `${name.toUpperCase()}_BASE_URL`;
  if (name === "azure-openai") return "AZURE_OPENAI_API_KEY and AZURE_OPENAI_BASE_URL";
  return null;
}
