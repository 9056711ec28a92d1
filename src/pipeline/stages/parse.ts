// Stage parse: reads the body within the size limit, validates it (schema, then the rules a schema
// cannot say) and the trace headers. Writes request (OpenAI's fields), options (gw's), requestedModel,
// stream, tags, workflow, step, session id.
import { DEFAULT_PROFILE, LIMITS } from "../../config/constants.ts";
import { invalidRequest } from "../../errors/gw-error.ts";
import type { ChatRequest } from "../../canonical/chat.ts";
import { ChatCompletionsBody, GW_OPTION_NAMES } from "../../schema/chat-completions.ts";
import { compileValidator, parseJsonObject, readBodyText } from "../../schema/validate.ts";
import type { Deps } from "../deps.ts";
import type { RequestState } from "../state.ts";
import { sessionIdOf } from "../../routing/sessions.ts";
import { readTraceHeaders } from "../trace-headers.ts";
import { optimizationOptionsOf } from "../../optimization/options.ts";

const validateBody = compileValidator(ChatCompletionsBody);

/** Cross-field rules of the OpenAI format that the schema cannot express. */
function checkMessages(req: ChatRequest): void {
  const messages = req.messages;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const hasContent = m.content !== undefined && m.content !== null;
    if (m.role === "tool" && typeof m.tool_call_id !== "string") {
      throw invalidRequest(`Messages with role 'tool' need a 'tool_call_id'.`, `messages[${i}].tool_call_id`);
    }
    if (m.role === "assistant" && !hasContent && !m.tool_calls?.length) {
      throw invalidRequest(`Assistant messages need 'content' or 'tool_calls'.`, `messages[${i}].content`);
    }
    if (m.role !== "assistant" && !hasContent) {
      throw invalidRequest(`Messages with role '${m.role}' need 'content'.`, `messages[${i}].content`);
    }
    if (m.role !== "user" && Array.isArray(m.content) && m.content.some((p) => p.type !== "text")) {
      throw invalidRequest(`Only user messages may contain image parts.`, `messages[${i}].content`);
    }
  }
}

function checkTools(req: ChatRequest): void {
  const choice = req.tool_choice;
  if (choice !== undefined && choice !== "none" && !req.tools?.length) {
    throw invalidRequest("'tool_choice' is only allowed when 'tools' are specified.", "tool_choice");
  }
  if (typeof choice === "object" && !req.tools?.some((t) => t.function.name === choice.function.name)) {
    throw invalidRequest(`'tool_choice' names the function '${choice.function.name}', which is not in 'tools'.`, "tool_choice");
  }
  const tools = req.tools;
  if (!tools?.length) return;
  const names = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i]!;
    if (names.has(t.function.name)) throw invalidRequest(`Duplicate tool name '${t.function.name}'.`, `tools[${i}].function.name`);
    names.add(t.function.name);
  }
}

/** Metadata keys (OpenAI's 64 characters); values, counts and labels are in the schema. */
function checkLabels(metadata: Record<string, unknown> | undefined): void {
  // for-in over a parsed JSON object: its own keys, without Object.keys' array.
  for (const key in metadata) {
    if (key.length > LIMITS.metadataKeyLength) {
      throw invalidRequest(`Metadata keys must be at most ${LIMITS.metadataKeyLength} characters.`, "metadata");
    }
  }
}

const GW_OPTIONS: ReadonlySet<string> = new Set(GW_OPTION_NAMES);

/** OpenAI's fields of the body, unknown ones included, in one copy; gw's own go to state.options. */
function chatOf(body: ChatCompletionsBody): ChatRequest {
  const chat: ChatRequest = { model: body.model ?? DEFAULT_PROFILE, messages: body.messages };
  for (const k in body) if (k !== "model" && k !== "messages" && !GW_OPTIONS.has(k)) chat[k] = Reflect.get(body, k);
  return chat;
}

export async function parse(_deps: Deps, state: RequestState): Promise<void> {
  readTraceHeaders(state);
  const sent = parseJsonObject(state.bodyText ?? (await readBodyText(state.http)));
  // Whatever the body says, the log should name the model the caller asked for.
  if (typeof sent.model === "string") state.requestedModel = sent.model;
  // An endpoint with its own body shape (/responses) hands a decoder; then the chat rules hold.
  const raw = state.decodeBody ? state.decodeBody(sent) : sent;
  const body = validateBody(raw);
  // gw's extension fields leave the request here, once: the adapters receive OpenAI's fields only,
  // unknown ones included.
  const { routing, max_cost, optimization, metadata, tags, cache, gw } = body;
  const req = chatOf(body);
  checkMessages(req);
  checkTools(req);
  checkLabels(metadata);
  state.request = req;
  state.options = { routing, max_cost, optimization, metadata, tags, cache, gw };
  state.optimizationOptions = optimizationOptionsOf(optimization, state.auth.rules.optimizationMode, req.messages.length);
  state.requestedModel = req.model;
  state.stream = body.stream === true;
  state.tags = tags ?? [];
  state.workflowId = gw?.workflow_id ?? null;
  state.step = gw?.step ?? metadata?.step ?? null;
  state.sessionId = sessionIdOf(state.http.headers.get("x-gw-session"), metadata, gw);
}
