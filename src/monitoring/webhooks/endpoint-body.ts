// The bodies of POST /projects/{id}/webhooks and PATCH /webhooks/{id} (docs/webhooks.md
// "Endpoints"): known fields only, every 400 naming the field at fault.
import { GwError, invalidRequest } from "../../errors/gw-error.ts";
import { unknownEventTypes } from "./event.ts";

export interface EndpointInput {
  url?: string;
  /** null: every event type (the list omitted on create, or set to null). */
  events?: string[] | null;
  description?: string | null;
  enabled?: boolean;
}

const CREATE_FIELDS = new Set(["url", "events", "description"]);
const UPDATE_FIELDS = new Set(["url", "events", "description", "enabled"]);
const MAX_URL = 2048;
const MAX_DESCRIPTION = 500;

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalidRequest("The body must be a JSON object.");
  return body as Record<string, unknown>;
}

function parseEvents(value: unknown): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.some((e) => typeof e !== "string")) throw invalidRequest("`events` must be a list of event type names.", "events");
  const events = value as string[];
  if (events.length === 0) throw invalidRequest("`events` must name at least one event type (omit it for all).", "events");
  const unknown = unknownEventTypes(events);
  if (unknown.length > 0) throw invalidRequest(`Unknown event type(s) in \`events\`: ${unknown.join(", ")}.`, "events");
  return [...new Set(events)];
}

function parseFields(body: Record<string, unknown>, allowed: Set<string>): EndpointInput {
  for (const key of Object.keys(body)) if (!allowed.has(key)) throw invalidRequest(`Unknown field \`${key}\`.`, key);
  const out: EndpointInput = {};
  if ("url" in body) {
    if (typeof body.url !== "string" || body.url === "" || body.url.length > MAX_URL) throw invalidRequest(`\`url\` must be a URL of at most ${MAX_URL} characters.`, "url");
    out.url = body.url;
  }
  if ("events" in body) out.events = parseEvents(body.events);
  if ("description" in body) {
    const d = body.description;
    if (d !== null && (typeof d !== "string" || d.length > MAX_DESCRIPTION)) throw invalidRequest(`\`description\` must be a string of at most ${MAX_DESCRIPTION} characters.`, "description");
    out.description = d;
  }
  if ("enabled" in body) {
    if (typeof body.enabled !== "boolean") throw invalidRequest("`enabled` must be true or false.", "enabled");
    out.enabled = body.enabled;
  }
  return out;
}

export function parseCreateBody(body: unknown): EndpointInput & { url: string } {
  const input = parseFields(asObject(body), CREATE_FIELDS);
  if (input.url === undefined) throw invalidRequest("`url` is required.", "url");
  return { ...input, url: input.url };
}

export function parseUpdateBody(body: unknown): EndpointInput {
  const input = parseFields(asObject(body), UPDATE_FIELDS);
  if (Object.keys(input).length === 0) throw invalidRequest("Nothing to change: give url, events, description or enabled.");
  return input;
}

export const urlRefused = (reason: string): GwError => invalidRequest(`\`url\` is refused: ${reason}.`, "url");
