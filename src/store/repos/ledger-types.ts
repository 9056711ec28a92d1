// The ledger's entries and sums (migration 007, docs/billing.md "The ledger"), in nano-USD: shared
// by the ledger repo and the uncommitted entries its reads include.

export type LedgerKind = "credit" | "hold" | "release" | "charge" | "cache";

export interface LedgerEntry {
  projectId: string;
  kind: LedgerKind;
  /** nano-USD: credit added, hold or release held, charge taken from the balance; 0 for cache. */
  amount: number;
  requestId?: string | null;
  model?: string | null;
  inputTokens?: number;
  outputTokens?: number;
  cost?: number;
  saved?: number;
  byok?: boolean;
  note?: string | null;
  createdAt: number;
  /** A charge, cache or release row that closes this request's open hold (not stored). */
  closesHold?: boolean;
}

export interface AccountTotals {
  balance: number;
  daySpent: number;
  monthSpent: number;
  /** Charge rows this month: requests a model answered (the Free plan's allowance). */
  monthRequests: number;
  /** The last credit row the balance includes. */
  creditSeq: number;
}

export interface InvoiceLineRow {
  model: string | null;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  charge: number;
}

export interface MonthSums {
  lines: InvoiceLineRow[];
  credits: { count: number; amount: number };
  cached: { count: number; saved: number };
}
