/** The worker list (connector/src/workers/worker.ts): started in order, stopped in reverse, one stop at a time. */
import { describe, expect, it } from 'vitest';
import { startInOrder, stopInReverse, type Worker } from '../../connector/src/workers/worker.js';

function recorder() {
  const events: string[] = [];
  const worker = (name: string): Worker => ({
    name,
    start: () => void events.push(`start ${name}`),
    async stop() {
      events.push(`stopping ${name}`);
      // A unit in hand finishes over a few turns of the event loop.
      await new Promise((r) => setTimeout(r, 5));
      events.push(`stopped ${name}`);
    },
    notify: () => undefined,
  });
  return { events, worker };
}

describe('a list of workers', () => {
  it('starts in order and stops in reverse, each stop finished before the next begins', async () => {
    const { events, worker } = recorder();
    const list = [worker('a'), worker('b'), worker('c')];
    startInOrder(list);
    expect(events).toEqual(['start a', 'start b', 'start c']);
    events.length = 0;
    await stopInReverse(list);
    expect(events).toEqual(['stopping c', 'stopped c', 'stopping b', 'stopped b', 'stopping a', 'stopped a']);
    expect(list.map((w) => w.name)).toEqual(['a', 'b', 'c']);
  });
});
