// Loading and error states shared by the Requests, Request detail, Projects and Audit log pages:
// one fetch per key (the URL's query, usually), the ApiError's message shown in role=alert.
import { useEffect, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { ms } from "../format.ts";

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

export const errorText = (e: unknown): string =>
  e instanceof ApiError || e instanceof Error ? e.message : "Something went wrong.";

/** Runs `load` whenever `key` changes (and on reload()); an answer that arrives after a newer
 * key was asked for is dropped, so fast filter changes never show stale rows. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({
    data: null, error: null, loading: true,
  });
  const [round, setRound] = useState(0);
  const [shownKey, setShownKey] = useState(key);
  useEffect(() => {
    let live = true;
    // A new key (other filters, another page) drops the old rows; a reload keeps them until it answers.
    const same = shownKey === key;
    setShownKey(key);
    setState((s) => ({ data: same ? s.data : null, error: null, loading: true }));
    load().then(
      (data) => { if (live) setState({ data, error: null, loading: false }); },
      (e: unknown) => { if (live) setState({ data: null, error: errorText(e), loading: false }); },
    );
    return () => { live = false; };
  }, [key, round]);
  return { ...state, reload: () => setRound((r) => r + 1) };
}

export function ErrorAlert({ message }: { message: string | null }) {
  return message ? <p role="alert" class="alert">{message}</p> : null;
}

export function Loading({ what }: { what: string }) {
  return <p class="loading" aria-busy="true">Loading {what}…</p>;
}

/** A duration with its unit, for tables (format.ts's ms() is the bare number the cards show). */
export const duration = (n: number | null | undefined): string => (n === null || n === undefined ? "–" : `${ms(n)} ms`);
export const time = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace("T", " ").slice(0, 19);
};

/** A select's options with `current` selected: Preact sets no initial value from `defaultValue` on
 * a <select>, so the option carries it. Each entry is a value, or [value, text]. */
export function Options({ list, current }: { list: readonly (string | readonly [string, string])[]; current: string }) {
  return (
    <>
      {list.map((o) => {
        const [value, text] = typeof o === "string" ? [o, o] : o;
        return <option key={value} value={value} selected={value === current}>{text}</option>;
      })}
    </>
  );
}
