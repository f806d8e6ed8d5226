/**
 * The add-on's manifest as Apps Script reads it: explicit oauthScopes, and urlFetchWhitelist with
 * the prefix rules of the "Allowlist URLs" guide (apps-script/manifest/allowlist-url).
 */
import fs from 'node:fs';

export interface Manifest {
  oauthScopes?: string[];
  urlFetchWhitelist?: string[];
  addOns?: unknown;
  [k: string]: unknown;
}

export function readManifest(file: string): Manifest {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
}

/**
 * Rules checked when the manifest is saved: each prefix a valid https URL with a full domain and a
 * non-empty path; at most one wildcard, and only as the leading label ("https://*.x.com/").
 */
export function checkAllowlist(prefixes: string[]): void {
  for (const p of prefixes) {
    const m = /^https:\/\/([^/?#]+)(\/[^?#]*)$/.exec(p);
    if (!m) throw new Error(`urlFetchWhitelist: "${p}" must be an https:// URL with a non-empty path (e.g. https://example.com/)`);
    const host = m[1]!;
    if ((host.match(/\*/g) ?? []).length > 1 || (host.includes('*') && !host.startsWith('*.')))
      throw new Error(`urlFetchWhitelist: "${p}": one wildcard at most, as the leading subdomain`);
    if (!host.replace(/^\*\./, '').includes('.')) throw new Error(`urlFetchWhitelist: "${p}" must have a full domain`);
  }
}

/**
 * Whether `url` is allowed by one prefix: the same URL, or a child of it (after the prefix comes
 * the end, "/", "?" or "#", unless the prefix itself ends in "/"); path matching is case
 * sensitive; "https://*.x.com/p" needs at least one subdomain.
 */
export function allowlisted(url: string, prefixes: string[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return prefixes.some((p) => {
    const m = /^https:\/\/([^/?#]+)(\/[^?#]*)$/.exec(p);
    if (!m || u.protocol !== 'https:') return false;
    const host = m[1]!.toLowerCase();
    const h = u.host.toLowerCase();
    const hostOk = host.startsWith('*.') ? h.endsWith(host.slice(1)) && h.length > host.length - 1 : h === host;
    if (!hostOk) return false;
    const rest = url.replace(/^https:\/\/[^/?#]+/i, '');
    const path = m[2]!;
    if (!rest.startsWith(path)) return false;
    const next = rest.charAt(path.length);
    return path.endsWith('/') || next === '' || next === '/' || next === '?' || next === '#';
  });
}
