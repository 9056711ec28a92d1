// Embeddings stage parse: reads the body within the size limit, validates it (schema/embeddings.ts)
// and the trace headers. Writes requestedModel, trace ids and the embed job (input, dimensions,
// encoding). The texts stay on the job only: nothing here reaches the log or the trace.
import { DEFAULT_EMBEDDING_MODEL } from "../../config/constants.ts";
import type { Deps } from "../deps.ts";
import { checkInput, EmbeddingsBody } from "../../schema/embeddings.ts";
import { compileValidator, parseJsonObject, readBodyText } from "../../schema/validate.ts";
import { readTraceHeaders } from "../trace-headers.ts";
import type { EmbedState } from "./embed-state.ts";

const validateBody = compileValidator(EmbeddingsBody);

export async function parseEmbeddings(_deps: Deps, state: EmbedState): Promise<void> {
  readTraceHeaders(state);
  const raw = parseJsonObject(state.bodyText ?? (await readBodyText(state.http)));
  // Whatever else is wrong, the log should name the model the caller asked for.
  if (typeof raw.model === "string") state.requestedModel = raw.model;
  checkInput(raw.input);
  const body = validateBody(raw);
  state.requestedModel = body.model ?? DEFAULT_EMBEDDING_MODEL;
  state.embed.defaulted = body.model === undefined;
  state.embed.input = typeof body.input === "string" ? [body.input] : body.input;
  state.embed.dimensions = body.dimensions;
  state.embed.encoding = body.encoding_format ?? "float";
}
