/**
 * What every background worker is (a name, start, stop, notify), and how a list of them is run:
 * started in order, stopped in reverse, each stop awaited before the next.
 */

export interface Worker {
  /** Names the worker in logs and tests. */
  readonly name: string;
  /** Starts taking work; does nothing when already started. */
  start(): void;
  /** Stops taking work and resolves once the units in hand have finished. */
  stop(): Promise<void>;
  /** Looks for work now rather than at the next poll: something was just written in this process. */
  notify(): void;
}

export function startInOrder(workers: readonly Worker[]): void {
  for (const w of workers) w.start();
}

/** One at a time, last started first: a worker stops while the ones it feeds still run. */
export async function stopInReverse(workers: readonly Worker[]): Promise<void> {
  for (const w of [...workers].reverse()) await w.stop();
}
