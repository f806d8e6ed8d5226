/** The operator's balance adjustment rule, applied the same way by every store backend. */

export interface BalanceAdjustment {
  /** New allowance per billing period. */
  allowance?: number;
  /** Credits to add (negative: take away), after `set`. */
  add?: number;
  /** Balance to set, before `add`. */
  set?: number;
}

/** The balance after `opts`: `set` first, then `add`, never below 0. */
export function adjustedBalance(current: number, opts: BalanceAdjustment): number {
  let balance = current;
  if (opts.set !== undefined) balance = opts.set;
  if (opts.add !== undefined) balance += opts.add;
  return Math.max(0, balance);
}
