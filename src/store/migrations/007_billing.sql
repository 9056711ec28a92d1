-- Billing (docs/billing.md "The ledger"): the append-only ledger every balance, budget, allowance
-- and invoice is derived from, in integer nano-USD; kinds credit, hold, release, charge (closes
-- its hold) and cache (amount 0, `saved` for the invoice); and budget events.
CREATE TABLE ledger (
  seq           INTEGER PRIMARY KEY,
  project_id    TEXT NOT NULL,
  -- One of the kinds above; checked by the repo's types, not a CHECK (a third of an insert's cost).
  kind          TEXT NOT NULL,
  amount        INTEGER NOT NULL,
  request_id    TEXT,
  model         TEXT,
  input_tokens  INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  -- Model cost before markup (charge rows) and the saving of a cache hit (cache rows), nano-USD.
  cost          INTEGER NOT NULL DEFAULT 0,
  saved         INTEGER NOT NULL DEFAULT 0,
  byok          INTEGER NOT NULL DEFAULT 0,
  note          TEXT,
  created_at    INTEGER NOT NULL
);
-- Balances, spent budgets, the plan's monthly count and invoices: one project, one kind, a time
-- range; `amount` in the index makes the sums index-only.
CREATE INDEX ledger_project_kind_time ON ledger(project_id, kind, created_at, amount);
-- Credits added by another process (the CLI) are picked up by the server from this index.
CREATE INDEX ledger_credits ON ledger(seq) WHERE kind = 'credit';

-- Holds not yet closed by a charge, cache or release row, kept in the same transactions as the
-- ledger rows: a restart releases exactly these without scanning the ledger.
CREATE TABLE ledger_open_holds (
  request_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  amount     INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;

-- A budget found exceeded: once per project, period (daily/monthly), period key and action.
CREATE TABLE budget_events (
  id         INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL,
  period     TEXT NOT NULL,
  period_key TEXT NOT NULL,
  action     TEXT NOT NULL,
  budget     INTEGER NOT NULL,
  spent      INTEGER NOT NULL,
  reserved   INTEGER NOT NULL,
  request_id TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (project_id, period, period_key, action)
);

-- Balances added before the ledger existed become its first credit rows.
INSERT INTO ledger (project_id, kind, amount, note, created_at)
  SELECT id, 'credit', CAST(round(balance * 1e9) AS INTEGER), 'balance before the ledger', created_at
  FROM projects WHERE balance <> 0;
