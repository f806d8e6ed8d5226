/** The add-on's HTML in Chromium, wired to the add-on harness: google.script.run as Apps Script's client gives it. */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
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

export const PICKER_STANDIN = fs.readFileSync(path.join(import.meta.dirname, 'standin/picker-standin.js'), 'utf8');

/**
 * Opens HTML the add-on showed (the sidebar or a dialog's content) in a new page, wired to the add-on as `h`'s
 * user: google.script.run (with `bridge`, GAS_RUN_BRIDGE plus what the suite records), google.script.host.close
 * (seen by `closed()`), the Picker's script from apis.google.com answered by the stand-in, which lists and grants
 * Drive files through the harness's Drive. Google's CSS package can't be fetched here: it is answered empty.
 */
export async function openAddonHtml(
  browser: Browser,
  h: Harness,
  html: string,
  bridge: string,
  size = { width: 320, height: 720 },
): Promise<Page & { closed: () => boolean }> {
  const page = await browser.newPage({ viewport: size });
  let closed = false;
  await page.route('https://ssl.gstatic.com/**', (r) => r.fulfill({ contentType: 'text/css', body: '' }));
  await page.route('https://apis.google.com/js/api.js**', (r) => r.fulfill({ contentType: 'text/javascript', body: PICKER_STANDIN }));
  await exposeGasRun(page, h);
  await page.exposeFunction('__hostClose', () => void (closed = true));
  const drive = h.world.drive;
  await page.exposeFunction('__pickerFiles', (token: string, mime: string | null) =>
    drive.listFor(drive.tokens.get(token)!.user, mime ?? undefined),
  );
  await page.exposeFunction('__pickerGrant', (token: string, appId: string | null, id: string) =>
    drive.grantPick(drive.tokens.get(token)!.user, id, appId),
  );
  await page.setContent(html.replace('<script>', `<script>${bridge}</script><script>`));
  return Object.assign(page, { closed: () => closed });
}
