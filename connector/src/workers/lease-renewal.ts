/**
 * Keeps a lease alive while its holder works: the lease is renewed every third of its length, so a
 * unit of work that runs long (a slow upstream, a queue of rate-limited calls) is not taken by another
 * worker halfway through, while the lease of a process that died still runs out after one length.
 * A failed renewal is only logged: the store's owner check on finishing decides who wins. A renewal
 * still waiting on the store when the next is due is not joined by another, so a store that stalls
 * doesn't pile up one pending renewal per interval.
 */
import type { Logger } from '../logger.js';

export async function whileRenewing<T>(
  lease: { ms: number; now: () => Date; renew: (until: string) => Promise<unknown>; logger: Logger },
  work: () => Promise<T>,
): Promise<T> {
  let pending = false;
  const timer = setInterval(
    () => {
      if (pending) return;
      pending = true;
      lease
        .renew(new Date(lease.now().getTime() + lease.ms).toISOString())
        .catch((err: unknown) => lease.logger.warn({ err }, 'lease renewal failed'))
        .finally(() => {
          pending = false;
        });
    },
    Math.max(50, Math.floor(lease.ms / 3)),
  );
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
