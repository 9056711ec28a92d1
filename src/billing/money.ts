// Money units and the charge rule (docs/billing.md "Units", "Charges").
// The ledger counts integer nano-USD (1e-9 USD): exact sums, fine enough for a one-token request.
// Numbers on the wire stay USD.

export const NANO_PER_USD = 1e9;
/** The service's markup on requests served with the operator's provider keys. */
export const MARKUP = 0.1;
/** Balances stay far inside exact integer range (2^53 nano-USD is about 9 million USD). */
export const MAX_BALANCE_NANO = 9e15;

export const toNano = (usd: number): number => Math.round(usd * NANO_PER_USD);
export const toUsd = (nano: number): number => nano / NANO_PER_USD;

/** What the project pays gw for a model cost: cost plus 10% on the operator's keys; nothing on the
 * project's own provider key (BYOK), whose provider bills the project directly: charging the cost
 * again would bill it twice, and BYOK carries no percentage (docs/billing.md "Charges"). */
export const chargeNano = (costUsd: number, byok: boolean): number =>
  byok ? 0 : Math.round(costUsd * NANO_PER_USD * (1 + MARKUP));

/** "$0.0000001": nano-USD as plain decimal dollars for messages (no exponent, no float noise). */
export function formatUsd(nano: number): string {
  const sign = nano < 0 ? "-" : "";
  const abs = Math.abs(Math.round(nano));
  const whole = Math.floor(abs / NANO_PER_USD);
  const frac = String(abs % NANO_PER_USD).padStart(9, "0").replace(/0+$/, "");
  return `${sign}$${whole}${frac ? "." + frac : ""}`;
}
