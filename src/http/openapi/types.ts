// What the OpenAPI document says about one route (docs/api.md "OpenAPI"); the tables of
// operations-*.ts are keyed by the route as the app registers it ("GET /v1/models/*").
import type { KeyScope } from "../../config/constants.ts";

export interface QueryParam {
  name: string;
  description: string;
  schema: object;
}

export interface Operation {
  summary: string;
  /** Where the docs describe it, e.g. `docs/api.md "Models"`. */
  docs: string;
  tag: string;
  /** A key scope, the admin token, no credentials, or the Messages API's x-api-key or Bearer key. */
  auth: KeyScope | "admin" | "none" | "messages";
  /** A JSON Schema (TypeBox's schemas are JSON Schema already). */
  body?: object;
  query?: QueryParam[];
  /** The chat, Responses, embeddings and Messages endpoints: gw's request headers, the answer's
   * headers and every pipeline error. */
  pipeline?: boolean;
  /** Bad input answers 422 `{message, errors}` instead of 400 (docs/api.md "Errors"). */
  fieldErrors?: boolean;
  /** Errors in another shape than gw's envelope (the Messages API's). */
  errorSchema?: object;
  ok: { status: number; description: string; schema?: object; stream?: string; contentType?: string };
  /** More error statuses than the ones the rest of the entry implies. */
  errors?: number[];
  /** Answers in a shape of their own (readiness's 503). */
  other?: Array<{ status: number; description: string; schema: object }>;
}

export type OperationTable = Readonly<Record<string, Operation>>;
