/** Row numbers as runs of consecutive rows, so a block of rows is read or written in one range call. */

/** [first row, rows] runs of `rows` in the order given: sort them first for ascending runs. */
export function runs(rows: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1] === r) last[1] += 1;
    else out.push([r, 1]);
  }
  return out;
}

/** Every row of the runs, in order. */
export function expand(rs: readonly (readonly number[])[]): number[] {
  return rs.flatMap(([s, n]) => Array.from({ length: n! }, (_, i) => s! + i));
}
