/**
 * What an add-on test file starts before its tests: the add-on built, one SyncHttp for the Apps Script
 * stand-ins, and its connector children (test/addon/connector-child.ts) started side by side. `stop`
 * ends every child that started, even when another failed to start, then the SyncHttp.
 */
import { buildAddon, startConnectorChild, SyncHttp, type ChildConnector } from '../addon/harness.js';

export type ConnectorChildSpec = Parameters<typeof startConnectorChild>[0];

/** A connector whose registry never answers, with a 3 s registry timeout: every unknown UK policy waits 3 s, so batches outlast a custom function's budget. */
export const SLOW_REGISTRY: ConnectorChildSpec = {
  slowRegistry: true,
  env: { COVERCHECK_REGISTRY_TIMEOUT_MS: '3000' },
  keys: { live: { mode: 'live', credits: 100 } },
};

/** The SyncHttp, `stop`, and each child under the name its spec was given (any name but those two). */
export type AddonRig<N extends string> = { http: SyncHttp; stop(): Promise<void> } & Record<N, ChildConnector>;

export async function startAddonRig<N extends string>(specs: Record<N, ConnectorChildSpec>): Promise<AddonRig<N>> {
  const names = Object.keys(specs) as N[];
  if (names.some((n) => n === 'http' || n === 'stop')) throw new Error('a connector child may not be named "http" or "stop"');
  buildAddon();
  const http = new SyncHttp();
  const started = await Promise.allSettled(names.map((n) => startConnectorChild(specs[n])));
  const stop = async () => {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    await http.close();
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const children = Object.fromEntries(names.map((n, i) => [n, (started[i] as PromiseFulfilledResult<ChildConnector>).value]));
  return { ...(children as Record<N, ChildConnector>), http, stop };
}
