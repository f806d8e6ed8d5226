/**
 * Debian's Chromium for the browser suites (playwright-core never downloads one; .ci/run installs the
 * package). Headless and quiet: no background fetches, updates or sync, since nothing but loopback is
 * reachable and a stray request would only slow a test down.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** Outside CI a machine without Chromium skips the browser suites; in CI a missing one fails them. */
export const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
export const SKIP_BROWSER = !HAVE_CHROMIUM && !process.env.CI;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Where a browser suite puts a screenshot the docs show: test/artifacts/ on every run (git-ignored, so a test run
 * leaves the checkout as it was), and docs/images/ too when COVERCHECK_DOC_SCREENSHOTS=1 asks for the docs' copies
 * to be made again (after a change to what the sidebar shows).
 */
export function docScreenshotPaths(root: string, name: string): string[] {
  const paths = [path.join(root, 'test/artifacts', name)];
  if (process.env.COVERCHECK_DOC_SCREENSHOTS === '1') paths.push(path.join(root, 'docs/images', name));
  for (const p of paths) fs.mkdirSync(path.dirname(p), { recursive: true });
  return paths;
}
