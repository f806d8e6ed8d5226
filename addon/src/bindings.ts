/**
 * Binding this spreadsheet to the user's API key (issue 17 item 5, the add-on's side): the
 * connector writes results and dataset refreshes only into a spreadsheet whose editor proved edit
 * access for that key. The add-on asks the connector for a binding, writes its token as
 * DOCUMENT-visible developer metadata (so the connector's service account can read it through the
 * Sheets API; PROJECT-visible metadata is visible to this script project only), then has the
 * connector verify it. Connectors without the binding routes (404) need none: the add-on carries on.
 */
import { api, ConnectorError, type Conn, type TBinding } from './connector.js';
import { userConn } from './settings.js';

export const BINDING_METADATA_KEY = 'covercheck.binding';
/** Document property per key (by a digest, never the key): {bindingId, metadataId} of what this add-on wrote. */
const recordProp = (keyId: string) => `covercheck.binding.${keyId}`;

export interface BindingView {
  /** False when the connector has no binding routes (it needs none). */
  supported: boolean;
  bound: boolean;
  bindingId: string | null;
  message: string;
}

interface BindingRecord {
  bindingId: string;
  metadataId: number | null;
}

function keyId(key: string): string {
  const d = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, key, Utilities.Charset.UTF_8);
  return Utilities.base64EncodeWebSafe(d).slice(0, 12);
}

function keyedConn(): Conn & { key: string } {
  const conn = userConn();
  if (!conn.url || !conn.key) throw new ConnectorError('no_key', 'Save a connector URL and API key in Covercheck > Settings first.');
  return conn as Conn & { key: string };
}

const unsupported = (): BindingView => ({ supported: false, bound: false, bindingId: null, message: 'This connector writes into any spreadsheet shared with its service account; no connection step is needed.' });
const isMissingRoute = (e: unknown) => e instanceof ConnectorError && e.status === 404;

function readRecord(props: GoogleAppsScript.Properties.Properties, id: string): BindingRecord | null {
  const raw = props.getProperty(recordProp(id));
  return raw ? (JSON.parse(raw) as BindingRecord) : null;
}

function removeMetadata(ss: GoogleAppsScript.Spreadsheet.Spreadsheet, metadataId: number | null): void {
  if (metadataId === null) return;
  for (const m of ss.createDeveloperMetadataFinder().withId(metadataId).find()) m.remove();
}

function activeFor(conn: Conn, spreadsheetId: string): TBinding | null {
  return api.bindings(conn).find((b) => b.spreadsheet_id === spreadsheetId && b.status === 'active') ?? null;
}

/** Whether this spreadsheet is connected to the current user's key. */
export function getBindingStatus(): BindingView {
  const conn = keyedConn();
  try {
    const b = activeFor(conn, SpreadsheetApp.getActiveSpreadsheet().getId());
    return b ? { supported: true, bound: true, bindingId: b.binding_id, message: `Connected to this key (…${conn.key.slice(-4)}): the connector may write into this spreadsheet.` } : { supported: true, bound: false, bindingId: null, message: 'Not connected: the connector may not write into this spreadsheet with this key.' };
  } catch (e) {
    if (isMissingRoute(e)) return unsupported();
    throw e;
  }
}

/**
 * Connects this spreadsheet to the current user's key: binding, then metadata (replacing the one
 * this add-on wrote before for the same key), then verification. When a binding is already
 * active it is kept, after re-verifying it if `recheck` (the connector said sheet_not_bound:
 * someone may have deleted the metadata).
 */
export function bindSpreadsheet(recheck = false): BindingView {
  const conn = keyedConn();
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  let created: TBinding;
  try {
    const active = activeFor(conn, ss.getId());
    if (active && !recheck) return getBindingStatus();
    if (active) {
      try {
        api.verifyBinding(conn, active.binding_id);
        return getBindingStatus();
      } catch (e) {
        if (!(e instanceof ConnectorError && e.kind === 'sheet_not_bound')) throw e;
      }
    }
    created = api.createBinding(conn, ss.getId());
  } catch (e) {
    if (isMissingRoute(e)) return unsupported();
    throw e;
  }
  if (!created.metadata_key || !created.metadata_value) throw new Error('The connector answered a binding without its token: update the connector.');
  const props = PropertiesService.getDocumentProperties();
  const id = keyId(conn.key);
  const old = readRecord(props, id);
  if (old) removeMetadata(ss, old.metadataId);
  ss.addDeveloperMetadata(created.metadata_key, created.metadata_value, SpreadsheetApp.DeveloperMetadataVisibility.DOCUMENT);
  const written = ss.createDeveloperMetadataFinder().withKey(created.metadata_key).withValue(created.metadata_value).find()[0];
  props.setProperty(recordProp(id), JSON.stringify({ bindingId: created.binding_id, metadataId: written ? written.getId() : null }));
  const others = api.bindings(conn).filter((b) => b.spreadsheet_id === ss.getId() && b.binding_id !== created.binding_id).map((b) => b.binding_id);
  for (const stale of new Set([...others, ...(old ? [old.bindingId] : [])])) {
    try {
      api.deleteBinding(conn, stale);
    } catch {
      // Already gone on the connector's side: nothing to undo.
    }
  }
  api.verifyBinding(conn, created.binding_id);
  return getBindingStatus();
}

/** "Disconnect": removes the metadata this add-on wrote for the key and deletes the binding(s) of this spreadsheet. */
export function disconnectSpreadsheet(): BindingView {
  const conn = keyedConn();
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const props = PropertiesService.getDocumentProperties();
  const id = keyId(conn.key);
  const rec = readRecord(props, id);
  if (rec) removeMetadata(ss, rec.metadataId);
  props.deleteProperty(recordProp(id));
  try {
    const ids = new Set(api.bindings(conn).filter((b) => b.spreadsheet_id === ss.getId()).map((b) => b.binding_id));
    if (rec) ids.add(rec.bindingId);
    for (const b of ids) {
      try {
        api.deleteBinding(conn, b);
      } catch (e) {
        if (!isMissingRoute(e)) throw e;
      }
    }
  } catch (e) {
    if (isMissingRoute(e)) return unsupported();
    throw e;
  }
  return getBindingStatus();
}
