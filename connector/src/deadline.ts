/**
 * A signal that aborts `ms` after now, with a TimeoutError reason as AbortSignal.timeout gives, or
 * when `outer` does if there is one, whichever comes first. Without `outer` nothing listens anywhere:
 * a caller that never cancels passes none, rather than a signal that never aborts, on which every
 * deadline in flight would hang a listener (past 10, Node's MaxListenersExceededWarning).
 *
 * Not `AbortSignal.any([outer, AbortSignal.timeout(ms)])`: in Node 20 (and 22/24 until
 * nodejs/node#57736 is fixed) a composite signal holds its sources weakly and the timer holds its
 * timeout signal weakly, so a garbage collection before the deadline collects the timeout signal
 * and the composite never aborts. An upstream that never answers then holds its lookup forever.
 * Here the timer's closure holds the controller, so the deadline outlives any collection;
 * test/verify/registry-deadline.test.ts forces one.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Drops the timer once the guarded work is over (the signal stays as it is). */
  clear(): void;
}

export function deadline(ms: number, outer?: AbortSignal): Deadline {
  const controller = new AbortController();
  const onOuter = () => end(outer?.reason);
  const timer = setTimeout(() => end(new DOMException(`The operation was aborted due to timeout`, 'TimeoutError')), ms);
  // A timer left after its work is over must not keep a stopping process alive.
  timer.unref();
  function end(reason: unknown): void {
    clear();
    controller.abort(reason);
  }
  function clear(): void {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
  if (outer?.aborted) end(outer.reason);
  else outer?.addEventListener('abort', onOuter, { once: true });
  return { signal: controller.signal, clear };
}
