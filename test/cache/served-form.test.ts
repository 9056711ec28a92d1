// A cached answer parsed once per entry the memory tier holds (src/cache/served-form.ts, docs/cache.md
// "Storage"): a hit served from it is the same text as one parsed per hit, whatever the stored body's
// shape; its values are shared and frozen; the LRU counts it in its budget.
import { afterEach, describe, expect, test } from "bun:test";
import type { CachedAnswer } from "../../src/cache/answer-store-types.ts";
import { servedAnswer } from "../../src/cache/cached-answer.ts";
import { completionFromForm, keepServedForm, servedFormBytes, servedFormOf } from "../../src/cache/served-form.ts";
import { entryBytes } from "../../src/cache/entry-bytes.ts";
import { RAW_BODY, type ChatCompletion } from "../../src/canonical/completion.ts";
import { completionBody } from "../../src/pipeline/completion-body.ts";
import type { CatalogModel } from "../../src/routing/catalog-types.ts";
import { entry, fixture, NOW, type Fixture } from "./answer-store-helpers.ts";

const choices = [{ index: 0, message: { role: "assistant", content: "Paris — \"la Ville Lumière\" 😀." }, finish_reason: "stop" }];
const usage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };

/** Stored bodies of every shape: as gw writes them (no id) and as older or odd rows may hold them. */
const bodies: Record<string, unknown> = {
  "as gw stores it: no id": { object: "chat.completion", created: 5, model: "gpt-4o-mini", choices, usage, system_fingerprint: "fp_1" },
  "with an id, first": { id: "chatcmpl-old", object: "chat.completion", created: 5, model: "gpt-4o-mini", choices, usage },
  "no created": { object: "chat.completion", model: "gpt-4o-mini", choices, usage },
  "no model": { object: "chat.completion", created: 5, choices, usage },
  "a model that is not a string": { object: "chat.completion", created: 5, model: 7, choices, usage },
  "the model's pair first met inside the choices": {
    object: "chat.completion", created: 5,
    choices: [{ index: 0, message: { role: "assistant", content: "x", meta: { model: "gpt-4o-mini" } }, finish_reason: "stop" }],
    model: "gpt-4o-mini", usage,
  },
  "the model first": { model: "gpt-4o-mini", object: "chat.completion", created: 5, choices, usage },
  "quotes and NUL in the model": { object: "chat.completion", created: 5, model: "a\":\"b\u0000c", choices, usage },
  "an integer-like key and __proto__": JSON.parse('{"object":"chat.completion","created":5,"model":"m","choices":[],"0":1,"__proto__":{"x":1}}'),
};

const gw = { request_id: "req_1", selected_model: "openai/gpt-4o-mini", provider: "cache", cost: 0, saved: 0.001, cache: "exact", fallbacks: [], test: false };
const asEntry = (body: string): CachedAnswer => ({ ...entry({ body }), id: 1 });

describe("the served form gives the same answer as parsing per hit", () => {
  for (const [name, value] of Object.entries(bodies)) {
    test(name, () => {
      const body = JSON.stringify(value);
      const e = asEntry(body);
      expect(keepServedForm(e)).toBe(true);
      const form = servedFormOf(e)!;
      const fromForm = completionFromForm(form, "chatcmpl-NEW", 1_700_000_000);
      const parsed = JSON.parse(body) as ChatCompletion;
      parsed.id = "chatcmpl-NEW";
      parsed.created = 1_700_000_000;
      expect(JSON.stringify(fromForm)).toBe(JSON.stringify(parsed));
      const raw = fromForm[RAW_BODY];
      if (raw !== undefined) expect(raw).toBe(JSON.stringify(parsed));
      expect(completionBody(fromForm, "openai/gpt-4o-mini", gw)).toBe(completionBody(parsed, "openai/gpt-4o-mini", gw));
    });
  }

  test("the text is spliced only where the first model pair is the top-level key", () => {
    const spliceable = (value: unknown) => {
      const e = asEntry(JSON.stringify(value));
      keepServedForm(e);
      return servedFormOf(e)!.spliceable;
    };
    expect(spliceable(bodies["as gw stores it: no id"])).toBe(true);
    expect(spliceable(bodies["the model first"])).toBe(true);
    expect(spliceable(bodies["the model's pair first met inside the choices"])).toBe(false);
    expect(spliceable(bodies["no model"])).toBe(false);
  });

  test("a body that is not a JSON object gets no form, and a corrupt one fails when served, as before", () => {
    const array = asEntry("[1,2]");
    expect(keepServedForm(array)).toBe(false);
    expect(servedFormOf(array)).toBeUndefined();
    const corrupt = asEntry("{not json");
    expect(keepServedForm(corrupt)).toBe(false);
    expect(() => servedAnswer({ id: "openai/gpt-4o-mini" } as CatalogModel, corrupt, NOW)).toThrow();
  });
});

describe("hits share the form's values", () => {
  test("each hit has its own id, created and top level; the shared values are frozen", () => {
    const e = asEntry(JSON.stringify(bodies["as gw stores it: no id"]));
    keepServedForm(e);
    const model = { id: "openai/gpt-4o-mini" } as CatalogModel;
    const a = servedAnswer(model, e, 1_000_000)!.completion;
    const b = servedAnswer(model, e, 2_000_000)!.completion;
    expect(a.id).not.toBe(b.id);
    expect([a.created, b.created]).toEqual([1000, 2000]);
    a.usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    expect(b.usage).toEqual(usage);
    expect(Object.isFrozen(b.choices[0]!.message)).toBe(true);
    expect(() => {
      b.choices[0]!.message.content = "changed";
    }).toThrow();
  });
});

describe("the answer store keeps the form of an entry it holds (docs/cache.md \"Storage\")", () => {
  let f: Fixture;
  afterEach(() => f.cleanup());

  test("made at the first exact hit and counted in the LRU's bytes; not made again", () => {
    f = fixture();
    const stored = f.store.put(entry());
    const held = entryBytes(stored);
    expect(f.store.memoryBytes).toBe(held);
    expect(servedFormOf(stored)).toBeUndefined();
    expect(f.store.get(stored.projectId, stored.key, NOW)).toBe(stored);
    expect(servedFormOf(stored)).toBeDefined();
    expect(f.store.memoryBytes).toBe(held + servedFormBytes(stored));
    f.store.get(stored.projectId, stored.key, NOW);
    expect(f.store.memoryBytes).toBe(held + servedFormBytes(stored));
  });

  test("an entry that fits but not with its form stays in the LRU without one: its hits parse", () => {
    const probe = entry();
    const budget = entryBytes({ ...probe, id: 1, tags: [...probe.tags] }) + 10;
    f = fixture({ memoryBytes: budget });
    const stored = f.store.put(probe);
    const held = f.store.memoryBytes;
    expect(held).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) {
      expect(f.store.get(stored.projectId, stored.key, NOW)).toBe(stored);
      expect(servedFormOf(stored)).toBeUndefined();
      expect(f.store.memoryBytes).toBe(held);
    }
  });

  test("an entry evicted with its form is read again and gets a new one", () => {
    const first = entry();
    const second = entry();
    const one = entryBytes({ ...first, id: 1, tags: [...first.tags] });
    // Room for both entries bare, or one with its form: the first hit evicts the other entry.
    f = fixture({ memoryBytes: 2 * one + 64 });
    const a = f.store.put(first);
    const b = f.store.put(second);
    f.store.flush();
    f.store.get(b.projectId, b.key, NOW);
    expect(f.store.memoryBytes).toBe(entryBytes(b) + servedFormBytes(b));
    const reads = f.probe.reads;
    const again = f.store.get(a.projectId, a.key, NOW)!;
    expect(f.probe.reads).toBe(reads + 1);
    expect(again).not.toBe(a);
    expect(again.body).toBe(a.body);
    expect(servedFormOf(again)).toBeDefined();
    expect(f.store.memoryBytes).toBe(entryBytes(again) + servedFormBytes(again));
  });

  test("with the memory tier off, no form is kept: each hit is parsed", () => {
    f = fixture({ memoryBytes: 0 });
    const stored = f.store.put(entry());
    f.store.flush();
    const found = f.store.get(stored.projectId, stored.key, NOW)!;
    expect(found.body).toBe(stored.body);
    expect(servedFormOf(found)).toBeUndefined();
    expect(f.store.memoryBytes).toBe(0);
  });
});
