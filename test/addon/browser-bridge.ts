/** The add-on's HTML in Chromium, wired to the add-on harness: google.script.run as Apps Script's client gives it. */
import type { Page } from 'playwright-core';
import type { EntryPoint, Harness } from './harness.js';

/**
 * google.script.run as a proxy: each call goes to `window.__gasRun` (exposeGasRun) and comes back
 * asynchronously to the success or failure handler, as HtmlService's client does.
 */
export const GAS_RUN_BRIDGE = `
window.google = { script: { get run() {
  const handlers = { ok: () => {}, fail: () => {} };
  const chain = new Proxy({}, { get(_t, name) {
    if (name === 'withSuccessHandler') return (f) => ((handlers.ok = f), chain);
    if (name === 'withFailureHandler') return (f) => ((handlers.fail = f), chain);
    return (...args) => { window.__gasRun(String(name), JSON.stringify(args)).then((r) => {
      const v = JSON.parse(r); if (v.ok) handlers.ok(v.value); else handlers.fail(new Error(v.error)); }); };
  } });
  return chain;
} } };`;

/** Exposes `__gasRun`: calls the add-on entry point as `h`'s user and answers its value or its error message. */
export async function exposeGasRun(page: Page, h: Harness): Promise<void> {
  await page.exposeFunction('__gasRun', (name: string, args: string) => {
    try {
      return JSON.stringify({ ok: true, value: h.fns[name as EntryPoint](...(JSON.parse(args) as unknown[])) ?? null });
    } catch (e) {
      // Errors come from the vm's realm: read the message rather than test instanceof.
      return JSON.stringify({ ok: false, error: (e as { message?: string })?.message ?? String(e) });
    }
  });
}
