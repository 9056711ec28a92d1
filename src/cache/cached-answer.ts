// A stored answer served again (docs/cache.md): a fresh completion id and creation time, and the
// model that produced it from the catalog; a model that left the catalog makes the entry unusable.
import { newCompletionId } from "../lib/ids.ts";
import type { ChatCompletion, Usage } from "../canonical/completion.ts";
import type { CatalogModel } from "../routing/catalog-types.ts";
import type { CachedAnswer } from "./answer-store-types.ts";
import { completionFromForm, servedFormOf } from "./served-form.ts";

export interface ServedAnswer {
  completion: ChatCompletion;
  usage: Usage;
  model: CatalogModel;
}

/** The entry as the answer to a request made at `createdAt` (ms), or null when its model is gone. */
export function servedAnswer(model: CatalogModel | undefined, entry: CachedAnswer, createdAt: number): ServedAnswer | null {
  if (!model) return null;
  const created = Math.floor(createdAt / 1000);
  // An entry the memory tier holds was parsed once (served-form.ts); others are parsed per hit.
  const form = servedFormOf(entry);
  if (form) return { completion: completionFromForm(form, newCompletionId(), created), usage: entry.usage, model };
  const completion = JSON.parse(entry.body) as ChatCompletion;
  completion.id = newCompletionId();
  completion.created = created;
  return { completion, usage: entry.usage, model };
}
