/** Billing periods are calendar months in UTC; balances reset to the allowance when one starts. */
export function billingPeriod(at: Date): string {
  return at.toISOString().slice(0, 7);
}
