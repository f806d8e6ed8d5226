/**
 * Settings: the user's connector URL and API key live in user properties (never in code or cells).
 * =VERIFYPOLICY runs without access to a user's properties, so it uses a key the user explicitly
 * granted to this spreadsheet (document properties), which every editor's formulas then spend.
 */
import { api, ConnectorError, type Conn } from './connector.js';

const USER_URL = 'covercheck.url';
const USER_KEY = 'covercheck.key';
const DOC_URL = 'covercheck.grant.url';
const DOC_KEY = 'covercheck.grant.key';
const DOC_BY = 'covercheck.grant.by';
const DOC_AT = 'covercheck.grant.at';

/** Shown in the settings dialog before granting; the same words go in addon/README.md. */
export const GRANT_WARNING =
  'Granting stores this API key in the spreadsheet (document properties). Every editor of this spreadsheet can then run =VERIFYPOLICY, and every such formula spends this key\'s credits. Revoke the grant to stop it.';

export interface SettingsView {
  url: string;
  keySet: boolean;
  /** Last 4 characters of the key, so a user can tell keys apart without the key being sent back. */
  keyHint: string;
  grant: { url: string; by: string; at: string; keyHint: string } | null;
  grantWarning: string;
}

const hint = (k: string) => (k ? `…${k.slice(-4)}` : '');

export function userConn(): Conn {
  const p = PropertiesService.getUserProperties();
  return { url: p.getProperty(USER_URL) ?? '', key: p.getProperty(USER_KEY) };
}

/** The connection custom functions use; throws the readable cell error when nothing was granted. */
export function grantConn(): Conn {
  const p = PropertiesService.getDocumentProperties();
  const url = p.getProperty(DOC_URL);
  const key = p.getProperty(DOC_KEY);
  if (!url || !key) throw new ConnectorError('no_key', 'No API key granted to this spreadsheet: open Covercheck > Settings and choose "Grant this key to this spreadsheet".');
  return { url, key };
}

export function getSettings(): SettingsView {
  const { url, key } = userConn();
  const d = PropertiesService.getDocumentProperties();
  const gUrl = d.getProperty(DOC_URL);
  const gKey = d.getProperty(DOC_KEY);
  return {
    url,
    keySet: !!key,
    keyHint: hint(key ?? ''),
    grant: gUrl && gKey ? { url: gUrl, by: d.getProperty(DOC_BY) ?? '', at: d.getProperty(DOC_AT) ?? '', keyHint: hint(gKey) } : null,
    grantWarning: GRANT_WARNING,
  };
}

/** Checks the URL's form; http is allowed only for loopback (a local connector in development). */
export function checkUrl(raw: string): string {
  const url = String(raw ?? '').trim().replace(/\/+$/, '');
  const m = /^(https?):\/\/([^/:?#]+)(:\d+)?(\/[^?#]*)?$/.exec(url);
  if (!m) throw new Error('The connector URL must look like https://covercheck.example.com');
  if (m[1] === 'http' && !/^(127\.0\.0\.1|localhost)$/.test(m[2]!)) throw new Error('The connector URL must use https:// (http is accepted for localhost only).');
  return url;
}

/** Saves URL and (when given) key; an empty key keeps the stored one. */
export function saveSettings(input: { url: string; key?: string }): SettingsView {
  const url = checkUrl(input.url);
  const p = PropertiesService.getUserProperties();
  p.setProperty(USER_URL, url);
  const key = String(input.key ?? '').trim();
  if (key) {
    if (!/^pk_(live|test)_\S+$/.test(key)) throw new Error('An API key starts with pk_live_ or pk_test_.');
    p.setProperty(USER_KEY, key);
  }
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
    const credits = a.credits.charged ? `${a.credits.balance} of ${a.credits.allowance} credits left (${a.credits.period})` : 'sandbox key, never charged';
    return { ok: true, message: `Connected as "${a.name}" (${a.mode}, plan ${a.plan}, scopes ${a.scopes.join(', ')}): ${credits}.` };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/** Copies the user's URL and key into this spreadsheet's document properties for =VERIFYPOLICY. */
export function grantKeyToSpreadsheet(confirmed: boolean): SettingsView {
  if (confirmed !== true) throw new Error(GRANT_WARNING);
  const { url, key } = userConn();
  if (!url || !key) throw new Error('Save a connector URL and API key first.');
  const d = PropertiesService.getDocumentProperties();
  d.setProperties({ [DOC_URL]: url, [DOC_KEY]: key, [DOC_BY]: Session.getActiveUser().getEmail() || 'an editor', [DOC_AT]: new Date().toISOString() });
  return getSettings();
}

export function revokeGrant(): SettingsView {
  const d = PropertiesService.getDocumentProperties();
  for (const k of [DOC_URL, DOC_KEY, DOC_BY, DOC_AT]) d.deleteProperty(k);
  return getSettings();
}
