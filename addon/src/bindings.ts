/**
 * Binding this spreadsheet to the user's API key (the add-on's side of the protocol in
 * docs/sheets-binding.md): the connector writes results and dataset refreshes only into
 * a spreadsheet whose editor proved edit access for that key. The add-on asks the connector for a
 * token, writes it as DOCUMENT-visible developer metadata (so the connector's service account can
 * read it through the Sheets API; PROJECT-visible metadata is visible to this script project only),
 * then has the connector verify it. A connector without a Google service account writes into no
 * spreadsheet, so there is nothing to connect.
 */
import type { TSheetBinding } from '../../shared/sheets.js';
import { BUSY_SIDEBAR, LOCK_WAIT_MS, withDocumentLock } from './locks.js';
import { api, ConnectorError, type Conn } from './connector.js';
import { keyTag } from './key-tag.js';
import { userConn } from './settings.js';

/** Document property per key (by its tag, never the key): the id of the metadata entry this add-on wrote for it. */
const recordProp = (key: string) => `covercheck.binding.${keyTag(key)}`;

export interface BindingView {
  /** False when the connector has no Google service account (it writes into no spreadsheet). */
  available: boolean;
  bound: boolean;
  bindingId: string | null;
  message: string;
}

const UNAVAILABLE: BindingView = {
  available: false,
  bound: false,
  bindingId: null,
  message: 'The connector has no Google service account, so it writes into no spreadsheet: there is nothing to connect.',
};

function keyedConn(): Conn & { key: string } {
  const conn = userConn();
  if (!conn.url || !conn.key) throw new ConnectorError('no_key', 'Save a connector URL and API key in Covercheck > Settings first.');
  return conn as Conn & { key: string };
}

function viewOf(conn: Conn & { key: string }, b: TSheetBinding | null): BindingView {
  return b?.status === 'active'
    ? {
        available: true,
        bound: true,
        bindingId: b.binding_id,
        message: `Connected to this key (…${conn.key.slice(-4)}): the connector may write into this spreadsheet.`,
      }
    : {
        available: true,
        bound: false,
        bindingId: null,
        message: 'Not connected: the connector may not write into this spreadsheet with this key.',
      };
}

/** The key's binding of this spreadsheet (the connector keeps at most one per key and spreadsheet). */
function bindingOf(conn: Conn, spreadsheetId: string): { available: false } | { available: true; binding: TSheetBinding | null } {
  try {
    return { available: true, binding: api.bindings(conn).find((b) => b.spreadsheet_id === spreadsheetId) ?? null };
  } catch (e) {
    // The list asks Google nothing: only a connector without a service account answers it 503.
    if (e instanceof ConnectorError && e.status === 503) return { available: false };
    throw e;
  }
}

/** Removes the metadata entry this add-on wrote for the key, if it is still there. */
function removeOwnMetadata(
  ss: GoogleAppsScript.Spreadsheet.Spreadsheet,
  props: GoogleAppsScript.Properties.Properties,
  prop: string,
): void {
  const id = Number(props.getProperty(prop));
  if (id) for (const m of ss.createDeveloperMetadataFinder().withId(id).find()) m.remove();
  props.deleteProperty(prop);
}

/** Whether this spreadsheet is connected to the current user's key. */
export function getBindingStatus(): BindingView {
  const conn = keyedConn();
  const found = bindingOf(conn, SpreadsheetApp.getActiveSpreadsheet().getId());
  return found.available ? viewOf(conn, found.binding) : UNAVAILABLE;
}

/**
 * Connects this spreadsheet to the current user's key: a token, written as metadata (replacing
 * the entry this add-on wrote before for the same key), then verified. An active binding is kept
 * as it is (one call), after verifying it again if `recheck` (the connector said sheet_not_bound:
 * someone may have deleted the metadata).
 */
export function bindSpreadsheet(recheck = false): BindingView {
  const conn = keyedConn();
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const found = bindingOf(conn, ss.getId());
  if (!found.available) return UNAVAILABLE;
  if (found.binding?.status === 'active') {
    if (!recheck) return viewOf(conn, found.binding);
    try {
      return viewOf(conn, api.verifyBinding(conn, found.binding.binding_id));
    } catch (e) {
      // Its token is no longer in the spreadsheet: a new one replaces it below.
      if (!(e instanceof ConnectorError && e.kind === 'sheet_not_bound')) throw e;
    }
  }
  const issued = api.createBinding(conn, ss.getId());
  const props = PropertiesService.getDocumentProperties();
  const prop = recordProp(conn.key);
  // Locked: two binds of one key at once would each remove the recorded entry, add their own, and
  // record one, leaving the other's token behind in the spreadsheet for good.
  withDocumentLock(
    LOCK_WAIT_MS.sidebar,
    () => {
      removeOwnMetadata(ss, props, prop);
      ss.addDeveloperMetadata(issued.metadata_key, issued.metadata_value, SpreadsheetApp.DeveloperMetadataVisibility.DOCUMENT);
      // addDeveloperMetadata returns the spreadsheet, not the entry: find it to remove it later.
      const written = ss.createDeveloperMetadataFinder().withKey(issued.metadata_key).withValue(issued.metadata_value).find()[0];
      if (written) props.setProperty(prop, String(written.getId()));
    },
    () => {
      throw new Error(BUSY_SIDEBAR);
    },
  );
  return viewOf(conn, api.verifyBinding(conn, issued.binding_id));
}

/** Before the connector is asked to write into this spreadsheet: connects it (one call when it already is). */
export function ensureBound(): void {
  const v = bindSpreadsheet();
  if (!v.available) throw new ConnectorError('server', v.message);
}

/** "Disconnect": removes the metadata this add-on wrote for the key and deletes the key's binding of this spreadsheet. */
export function disconnectSpreadsheet(): BindingView {
  const conn = keyedConn();
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  removeOwnMetadata(ss, PropertiesService.getDocumentProperties(), recordProp(conn.key));
  const found = bindingOf(conn, ss.getId());
  if (!found.available) return UNAVAILABLE;
  if (found.binding) api.deleteBinding(conn, found.binding.binding_id);
  return viewOf(conn, null);
}
