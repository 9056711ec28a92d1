// The /embeddings response text (docs/api.md "Embeddings", plus "The gw object"). Written by
// hand around JSON.stringify of each vector: a 2048 x 3072 answer should not first become a tree
// of objects only to be walked again by the serializer.
import type { EmbeddingResult } from "../../canonical/embeddings.ts";

/** encoding_format "base64", exactly as OpenAI sends it: the vector's float32 values,
 * little-endian, base64-encoded (what the openai SDKs decode by default). */
export function base64Float32(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString("base64");
}

export function embeddingsBody(
  result: EmbeddingResult, modelId: string, encoding: "float" | "base64", gw: Record<string, unknown>,
): string {
  const items = new Array<string>(result.data.length);
  for (let i = 0; i < result.data.length; i++) {
    const { index, embedding } = result.data[i]!;
    // base64 text never needs JSON escaping.
    const value = encoding === "base64" ? `"${base64Float32(embedding)}"` : JSON.stringify(embedding);
    items[i] = `{"object":"embedding","index":${index},"embedding":${value}}`;
  }
  const { prompt_tokens, total_tokens } = result.usage;
  return `{"object":"list","data":[${items.join(",")}],"model":${JSON.stringify(modelId)},` +
    `"usage":{"prompt_tokens":${prompt_tokens},"total_tokens":${total_tokens}},"gw":${JSON.stringify(gw)}}`;
}
