/** The offload thread (offload/index.ts): reads a large body, and moves the decoded documents back rather than copying them. */
import { Piscina } from 'piscina';
import { readJsonBody } from './body.js';
import type { OffloadTask } from './index.js';

export default function run(task: OffloadTask) {
  const out = readJsonBody(task.bytes, task.documentFields, task.shape);
  // Only buffers that own their memory: a small one may sit in node's shared pool, which must stay here.
  const moved = out.ok
    ? Object.values(out.documents).flatMap((d) =>
        d.ok && d.value.buffer.byteLength === d.value.byteLength ? [d.value.buffer as ArrayBuffer] : [],
      )
    : [];
  return Piscina.move({ [Piscina.transferableSymbol]: moved, [Piscina.valueSymbol]: out } as never);
}
