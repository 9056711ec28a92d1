// Maps an embeddings call to an OpenAI-compatible POST /embeddings and reads the reply back into
// the canonical result (pure). Wire shape: platform.openai.com/docs/api-reference/embeddings.
import { isObject } from "../../lib/json.ts";
import { countTextsTokens } from "../../analysis/tokens.ts";
import type { UpstreamRequest } from "../transport.ts";
import type { EmbedCall } from "../types.ts";
import type { EmbeddingResult } from "../../canonical/embeddings.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import { endpointUrl, jsonHeaders, type OpenAICompatibleOptions } from "./request.ts";

export interface EmbeddingsBody {
  model: string;
  input: string[];
  encoding_format: "float";
  dimensions?: number;
}

export function toEmbeddingsBody(call: EmbedCall): EmbeddingsBody {
  // Floats asked for explicitly: some compatible upstreams default to base64 (see decodeBase64).
  const body: EmbeddingsBody = { model: call.model.upstream_id, input: call.input, encoding_format: "float" };
  if (call.dimensions !== undefined) body.dimensions = call.dimensions;
  return body;
}

/** Addressing and auth (Azure's deployment URL with api-version and its `api-key` header
 * included) come from request.ts, shared with chat. */
export function buildEmbeddingsRequest(call: EmbedCall, options: OpenAICompatibleOptions): UpstreamRequest {
  return { url: endpointUrl("embeddings", call.model.upstream_id, options), headers: jsonHeaders(options), body: JSON.stringify(toEmbeddingsBody(call)) };
}

const unexpected = (provider: string, what: string): UpstreamFailure =>
  UpstreamFailure.badBody(`${provider} returned ${what}.`);

/** encoding_format "base64": little-endian float32s, as OpenAI sends them. Kept for upstreams that
 * ignore encoding_format; null when the bytes are not whole floats. */
export function decodeBase64(text: string): number[] | null {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length % 4 !== 0) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const out = new Array<number>(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

function vectorOf(embedding: unknown): number[] | null {
  if (typeof embedding === "string") return decodeBase64(embedding);
  if (Array.isArray(embedding) && embedding.every((x) => typeof x === "number")) return embedding as number[];
  return null;
}

const count = (n: unknown): number | null => (typeof n === "number" && Number.isFinite(n) ? n : null);

/** The reply as the canonical result: one vector per input, in input order whatever order `data`
 * came in. Usage missing (some compatible upstreams leave it out) is counted with gpt-tokenizer,
 * an estimate: the result type has no field to say so. */
export function parseEmbeddings(text: string, call: EmbedCall, provider: string): EmbeddingResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw unexpected(provider, "a body that is not JSON");
  }
  if (!isObject(body) || !Array.isArray(body.data)) throw unexpected(provider, "an unexpected body");
  const items: unknown[] = body.data;
  const vectors = new Array<number[] | undefined>(call.input.length).fill(undefined);
  for (const [position, item] of items.entries()) {
    if (!isObject(item)) throw unexpected(provider, "an unexpected embedding");
    const index = item.index === undefined ? position : item.index;
    const vector = vectorOf(item.embedding);
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= vectors.length || vectors[index] || !vector) {
      throw unexpected(provider, "an unexpected embedding");
    }
    vectors[index] = vector;
  }
  const data = vectors.map((embedding, index) => {
    if (!embedding) throw unexpected(provider, `${items.length} embeddings for ${call.input.length} inputs`);
    return { index, embedding };
  });
  const usage = isObject(body.usage) ? body.usage : {};
  const prompt = count(usage.prompt_tokens) ?? countTextsTokens(call.input);
  return {
    model: typeof body.model === "string" ? body.model : call.model.upstream_id,
    data,
    usage: { prompt_tokens: prompt, total_tokens: count(usage.total_tokens) ?? prompt },
  };
}
