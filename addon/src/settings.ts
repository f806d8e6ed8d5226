/**
 * Settings: the user's connector URL and API key live in user properties (never in code or cells).
 * =VERIFYPOLICY runs as a custom function, which reads only the spreadsheet owner's user
 * properties (custom functions guide), so it uses a key the user explicitly granted to this
 * spreadsheet (document properties), which every editor's formulas then spend.
 */
import { forgetResults } from './cache.js';
import { api, ConnectorError, type Conn } from './connector.js';

/** The manifest's urlFetchWhitelist, compiled in by scripts/build-addon.mjs. */
declare const __URL_FETCH_ALLOWLIST__: string[];

const USER_URL = 'covercheck.url';
const USER_KEY = 'covercheck.key';
const DOC_URL = 'covercheck.grant.url';
const DOC_KEY = 'covercheck.grant.key';
const DOC_ACCOUNT = 'covercheck.grant.account';
const DOC_AT = 'covercheck.grant.at';

/** Shown in the settings dialog before granting; the same words go in addon/README.md. */
export const GRANT_WARNING =
  "Granting stores this API key in the spreadsheet (document properties). Every editor of this spreadsheet can then run =VERIFYPOLICY, and every such formula spends this key's credits. Revoke the grant to stop it.";

export interface SettingsView {
  url: string;
  /** The connector URLs this deployment may call (the manifest's allowlist): the URL field offers them. */
  allowedUrls: string[];
  keySet: boolean;
  /** Last 4 characters of the key, so a user can tell keys apart without the key being sent back. */
  keyHint: string;
  /** Who granted is not recorded (that needs the userinfo.email scope): the key's connector account and when. */
  grant: { url: string; account: string; at: string; keyHint: string } | null;
  grantWarning: string;
}

const hint = (k: string) => (k ? `…${k.slice(-4)}` : '');

/** Connector origins the manifest allowlists (Google's own API prefixes aside), without the trailing slash. */
export function allowedConnectorUrls(): string[] {
  return __URL_FETCH_ALLOWLIST__.filter((p) => !/^https:\/\/[^/]*googleapis\.com\//.test(p)).map((p) => p.replace(/\/+$/, ''));
}

/** Whether `url` is the same as an allowlist prefix or below it (Allowlist URLs guide: prefix match, path case sensitive). */
function underPrefix(url: string, prefix: string): boolean {
  const p = prefix.replace(/\/+$/, '');
  const wild = /^https:\/\/\*\.(.+)$/.exec(p);
  if (wild) {
    const m = /^https:\/\/([^/?#]+)(.*)$/.exec(url);
    const [host, rest] = [m?.[1] ?? '', m?.[2] ?? ''];
    const [domain, ...path] = wild[1]!.split('/');
    const prefixPath = path.length ? `/${path.join('/')}` : '';
    return host.toLowerCase().endsWith(`.${domain!.toLowerCase()}`) && (rest === prefixPath || rest.startsWith(`${prefixPath}/`));
  }
  return url === p || url.startsWith(`${p}/`);
}

export function userConn(): Conn {
  const p = PropertiesService.getUserProperties();
  return { url: p.getProperty(USER_URL) ?? '', key: p.getProperty(USER_KEY) };
}

/**
 * The connection custom functions use, from the document properties (=VERIFYPOLICY reads them all
 * in one call); throws the readable cell error when nothing was granted.
 */
export function grantConn(docProps: Record<string, string>): Conn {
  const url = docProps[DOC_URL];
  const key = docProps[DOC_KEY];
  if (!url || !key)
    throw new ConnectorError(
      'no_key',
      'No API key granted to this spreadsheet: open Covercheck > Settings and choose "Grant this key to this spreadsheet".',
    );
  return { url, key };
}

export function getSettings(): SettingsView {
  const { url, key } = userConn();
  const d = PropertiesService.getDocumentProperties();
  const gUrl = d.getProperty(DOC_URL);
  const gKey = d.getProperty(DOC_KEY);
  const allowed = allowedConnectorUrls();
  return {
    // Pre-filled with the one connector this deployment may call.
    url: url || (allowed.length === 1 && !allowed[0]!.includes('*') ? allowed[0]! : ''),
    allowedUrls: allowed,
    keySet: !!key,
    keyHint: hint(key ?? ''),
    grant:
      gUrl && gKey ? { url: gUrl, account: d.getProperty(DOC_ACCOUNT) ?? '', at: d.getProperty(DOC_AT) ?? '', keyHint: hint(gKey) } : null,
    grantWarning: GRANT_WARNING,
  };
}

/**
 * Checks the URL's form and that the manifest's urlFetchWhitelist lets the add-on call it: Apps
 * Script refuses any other URL, and only https prefixes can be allowlisted (so no http://, and
 * no loopback address, which Google's servers could not reach anyway).
 */
export function checkUrl(raw: string): string {
  const url = String(raw ?? '')
    .trim()
    .replace(/\/+$/, '');
  if (!/^https?:\/\/[^/:?#\s]+(:\d+)?(\/[^?#\s]*)?$/.test(url))
    throw new Error('The connector URL must look like https://covercheck.example.com');
  if (!url.startsWith('https://'))
    throw new Error(
      "The connector URL must use https:// (Apps Script calls it from Google's servers, and only https URLs can be allowed in the add-on's manifest).",
    );
  const allowed = allowedConnectorUrls();
  if (!allowed.some((p) => underPrefix(url, p))) {
    throw new Error(
      `This add-on may only call ${allowed.join(' or ')} (the urlFetchWhitelist of its manifest). Ask whoever deployed it to add ${url}/ there.`,
    );
  }
  return url;
}

/** Saves URL and (when given) key; an empty key keeps the stored one. */
export function saveSettings(input: { url: string; key?: string }): SettingsView {
  const url = checkUrl(input.url);
  const p = PropertiesService.getUserProperties();
  const key = String(input.key ?? '').trim();
  if (key && !/^pk_(live|test)_\S+$/.test(key)) throw new Error('An API key starts with pk_live_ or pk_test_.');
  p.setProperties(key ? { [USER_URL]: url, [USER_KEY]: key } : { [USER_URL]: url });
  return getSettings();
}

export function clearKey(): SettingsView {
  PropertiesService.getUserProperties().deleteProperty(USER_KEY);
  return getSettings();
}

/** "Test connection": GET /api/v1/account with the user's key, summarised in one line. */
export function testConnection(): { ok: boolean; message: string } {
  try {
    const a = api.account(userConn());
    const credits = a.credits.charged
      ? `${a.credits.balance} of ${a.credits.allowance} credits left (${a.credits.period})`
      : 'sandbox key, never charged';
    return { ok: true, message: `Connected as "${a.name}" (${a.mode}, plan ${a.plan}, scopes ${a.scopes.join(', ')}): ${credits}.` };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Copies the user's URL and key into this spreadsheet's document properties for =VERIFYPOLICY,
 * after the connector has accepted the key (its account name is shown with the grant).
 */
export function grantKeyToSpreadsheet(confirmed: boolean): SettingsView {
  if (confirmed !== true) throw new Error(GRANT_WARNING);
  const conn = userConn();
  if (!conn.url || !conn.key) throw new Error('Save a connector URL and API key first.');
  const account = api.account(conn);
  const d = PropertiesService.getDocumentProperties();
  // Results are cached per key (cache.ts resultScope); another key's are dropped, not only unreachable.
  if (d.getProperty(DOC_KEY) !== conn.key || d.getProperty(DOC_URL) !== conn.url) forgetResults();
  d.setProperties({ [DOC_URL]: conn.url, [DOC_KEY]: conn.key, [DOC_ACCOUNT]: account.name, [DOC_AT]: new Date().toISOString() });
  return getSettings();
}

/** Stops =VERIFYPOLICY spending the key, and forgets the results it paid for (granted again, it asks again). */
export function revokeGrant(): SettingsView {
  const d = PropertiesService.getDocumentProperties();
  for (const k of [DOC_URL, DOC_KEY, DOC_ACCOUNT, DOC_AT]) d.deleteProperty(k);
  forgetResults();
  return getSettings();
}
