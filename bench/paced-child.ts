/**
 * A load generator process of its own (see `startLoadGenerator` in paced.ts): runs the paced loads
 * it is sent, one at a time, and answers each with its result. 'stop' ends the current load early.
 */
import { pacedLoad, type PacedLoad } from './paced.js';

type Message = { type: 'run'; load: Omit<PacedLoad, 'stopWhen'> } | { type: 'stop' };

let stopped = false;
process.on('message', (msg: Message) => {
  if (msg.type === 'stop') {
    stopped = true;
    return;
  }
  stopped = false;
  void pacedLoad({ ...msg.load, stopWhen: () => stopped }).then((result) => process.send!({ type: 'result', result }));
});
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'ready' });
