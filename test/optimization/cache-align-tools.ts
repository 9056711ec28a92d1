// Tools for the cache_align tests, and a client whose serialiser reorders object keys (as Go maps
// and Swift dictionaries do): the same definitions, keys in a different order per seed.
import type { ChatMessage, FunctionTool } from "../../src/canonical/chat.ts";
import { prng as random } from "../../bench/lib/prng.ts";

export const TOOLS: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather and a forecast for a city",
      strict: true,
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", description: "City name, e.g. Paris" },
          unit: { type: "string", enum: ["celsius", "fahrenheit"], description: "Temperature unit" },
          days: { type: "integer", minimum: 1, maximum: 14 },
        },
        required: ["city", "unit", "days"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "book_hotel",
      description: "Books a hotel room for the given nights and guests",
      parameters: {
        type: "object",
        properties: {
          hotel: { type: "string" },
          check_in: { type: "string", format: "date" },
          nights: { type: "integer", default: 1 },
          guests: {
            type: "array",
            maxItems: 4,
            items: { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name"] },
          },
        },
        required: ["hotel", "check_in", "nights"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "search_flights",
      description: "Searches direct and one-stop flights between two airports",
      parameters: {
        type: "object",
        properties: {
          from: { type: "string", pattern: "^[A-Z]{3}$" },
          to: { type: "string", pattern: "^[A-Z]{3}$" },
          date: { type: "string", format: "date" },
          cabin: { type: "string", enum: ["economy", "premium", "business"], default: "economy" },
        },
        required: ["from", "to", "date"],
      },
    },
  },
];


/** `value` with every object's keys in a seeded random order (arrays keep theirs); with
 * `keepProperties`, the names inside `properties` keep their order (their schemas are shuffled). */
export function shuffledKeys<T>(value: T, seed: number, keepProperties = false): T {
  const next = random(seed);
  const walk = (v: unknown, inProperties: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, false));
    if (typeof v !== "object" || v === null) return v;
    const keys = Object.keys(v);
    if (!(inProperties && keepProperties)) {
      for (let i = keys.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [keys[i], keys[j]] = [keys[j]!, keys[i]!];
      }
    }
    const out: Record<string, unknown> = {};
    for (const k of keys) out[k] = walk((v as Record<string, unknown>)[k], k === "properties" && !inProperties);
    return out;
  };
  return walk(value, false) as T;
}

/** ASCII text of exactly `bytes` bytes. */
export const filler = (bytes: number, seed: string): string => seed.repeat(Math.ceil(bytes / seed.length)).slice(0, bytes);

/** A system prompt of ~1,700 estimated tokens: past Sonnet's 1,024-token cache minimum. */
export const SYSTEM = filler(5_000, "You are a careful travel agent; quote prices in euros and confirm dates. ");

/** Turn 1 of a session: history with a tool round trip, then the first question asked now. Its
 * stable part is every message but the last (the last user turn). */
export function firstTurn(): ChatMessage[] {
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: "What is the weather in Paris for the next 3 days, in celsius?" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_w1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\",\"unit\":\"celsius\",\"days\":3}" } }] },
    { role: "tool", tool_call_id: "call_w1", content: filler(1_500, "Paris: 14 C, light rain; ") },
    { role: "assistant", content: "Paris: about 14 C with light rain for the next three days." },
    { role: "user", content: "Find me a hotel near the Louvre for 2 nights from 2026-12-03." },
  ];
}

/** The user's question of turn `n` (2..10). */
export const question = (n: number): string => `Turn ${n}: and what about option ${n} for the same dates?`;
