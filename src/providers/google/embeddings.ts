// Maps an embeddings call to Gemini's embedContent (one text) or batchEmbedContents (several) and
// reads the replies back into the canonical result (pure). Shapes: ai.google.dev/api/embeddings.
import { isObject } from "../../lib/json.ts";
import { countTextsTokens } from "../../analysis/tokens.ts";
import type { UpstreamRequest } from "../transport.ts";
import type { EmbedCall } from "../types.ts";
import type { EmbeddingResult } from "../../canonical/embeddings.ts";
import type { GoogleOptions } from "./request.ts";
import { parseBody, unexpected } from "./response.ts";

/** batchEmbedContents refuses more ("at most 100 requests can be in one batch"), while an OpenAI
 * caller may send up to 2048 inputs: a larger call becomes several requests, sent in turn. */
export const MAX_BATCH = 100;

export interface EmbedContentRequest {
  /** "models/<id>": required inside a batch, where it must name the model of the URL. */
  model?: string;
  content: { parts: Array<{ text: string }> };
  outputDimensionality?: number;
}

export interface BatchEmbedContentsRequest {
  requests: EmbedContentRequest[];
}

/** One upstream request's share of the reply: its vectors, and its token count when Gemini sent
 * one (gemini-embedding-001 sends none). */
export interface EmbedPart {
  vectors: number[][];
  promptTokens: number | null;
}

const modelName = (call: EmbedCall): string => call.model.upstream_id.replace(/^models\//, "");

function embedRequest(text: string, dimensions: number | undefined, model?: string): EmbedContentRequest {
  const req: EmbedContentRequest = model ? { model, content: { parts: [{ text }] } } : { content: { parts: [{ text }] } };
  if (dimensions !== undefined) req.outputDimensionality = dimensions;
  return req;
}

/** The body for these texts: a lone text goes to embedContent, several to batchEmbedContents.
 * taskType is left out (the canonical call has none): Gemini then embeds for no particular task. */
export function toEmbedBody(model: string, texts: string[], dimensions?: number): EmbedContentRequest | BatchEmbedContentsRequest {
  const only = texts.length === 1 ? texts[0] : undefined;
  if (only !== undefined) return embedRequest(only, dimensions);
  return { requests: texts.map((text) => embedRequest(text, dimensions, `models/${model}`)) };
}

/** An upstream request and the number of texts it carries (its reply must hold as many vectors). */
export interface EmbedRequest {
  request: UpstreamRequest;
  texts: number;
}

/** One request per MAX_BATCH texts, in input order. */
export function buildEmbedRequests(call: EmbedCall, options: GoogleOptions): EmbedRequest[] {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey) headers["x-goog-api-key"] = options.apiKey;
  const model = modelName(call);
  const base = `${options.baseUrl.replace(/\/+$/, "")}/v1beta/models/${model}`;
  const out: EmbedRequest[] = [];
  for (let i = 0; i < call.input.length; i += MAX_BATCH) {
    const texts = call.input.slice(i, i + MAX_BATCH);
    const method = texts.length === 1 ? "embedContent" : "batchEmbedContents";
    const body = JSON.stringify(toEmbedBody(model, texts, call.dimensions));
    out.push({ request: { url: `${base}:${method}`, headers, body }, texts: texts.length });
  }
  return out;
}


function valuesOf(embedding: unknown): number[] {
  const values = isObject(embedding) ? embedding.values : undefined;
  if (!Array.isArray(values) || !values.every((x) => typeof x === "number")) throw unexpected("an unexpected embedding");
  return values as number[];
}

/** An EmbedContentResponse ({embedding}) or BatchEmbedContentsResponse ({embeddings}, in request
 * order). usageMetadata is read where a newer model sends it. */
export function parseEmbedResponse(text: string, texts: number): EmbedPart {
  const body = parseBody(text);
  let vectors: number[][];
  if (Array.isArray(body.embeddings)) vectors = body.embeddings.map(valuesOf);
  else if (body.embedding !== undefined) vectors = [valuesOf(body.embedding)];
  else throw unexpected("an unexpected body");
  if (vectors.length !== texts) throw unexpected(`${vectors.length} embeddings for ${texts} texts`);
  const meta = isObject(body.usageMetadata) ? body.usageMetadata : {};
  const tokens = meta.promptTokenCount;
  return { vectors, promptTokens: typeof tokens === "number" && Number.isFinite(tokens) ? tokens : null };
}

/** The parts joined in input order. Where any part came without a token count, the whole input is
 * counted with gpt-tokenizer instead: an estimate (Gemini's tokenizer differs), which the result
 * type cannot flag, but billing on it beats billing nothing. */
export function toEmbeddingResult(call: EmbedCall, parts: EmbedPart[]): EmbeddingResult {
  const vectors = parts.flatMap((p) => p.vectors);
  let prompt = 0;
  for (const p of parts) {
    if (p.promptTokens === null) {
      prompt = countTextsTokens(call.input);
      break;
    }
    prompt += p.promptTokens;
  }
  return {
    model: call.model.upstream_id,
    data: vectors.map((embedding, index) => ({ index, embedding })),
    usage: { prompt_tokens: prompt, total_tokens: prompt },
  };
}
