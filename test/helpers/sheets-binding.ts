/**
 * Binds a spreadsheet to a key the way an editor does through the add-on: ask the connector for a
 * token, write it into the spreadsheet as DOCUMENT-visible developer metadata (in the Sheets
 * stand-in), then ask the connector to verify it.
 */
import type { SheetBindings } from '../../connector/src/sheets/bindings.js';
import { BINDING_METADATA_KEY, type TSheetBinding, type TSheetBindingIssued } from '../../shared/sheets.js';
import type { FakeGoogle } from './fake-google.js';
import { call } from './server.js';

export interface Bound {
  binding: TSheetBinding;
  token: string;
  /** The developer metadata entry that holds the token, to remove it later. */
  metadataId: number;
}

/** Through the connector's HTTP API, with `key`. */
export async function bindOverHttp(url: string, key: string, google: FakeGoogle, spreadsheetId: string): Promise<Bound> {
  const issued = await call<TSheetBindingIssued>(url, 'POST', '/api/v1/sheets/bindings', { key, body: { spreadsheet_id: spreadsheetId } });
  if (issued.status !== 201) throw new Error(`POST /sheets/bindings answered ${issued.status}: ${JSON.stringify(issued.body)}`);
  const entry = google.addDeveloperMetadata(spreadsheetId, {
    key: issued.body.metadata_key,
    value: issued.body.metadata_value,
    visibility: 'DOCUMENT',
  });
  const verified = await call<TSheetBinding>(url, 'POST', `/api/v1/sheets/bindings/${issued.body.binding_id}/verify`, { key });
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}: ${JSON.stringify(verified.body)}`);
  return { binding: verified.body, token: issued.body.metadata_value, metadataId: entry.metadataId };
}

/** Through the domain object, for tests that drive the writers without HTTP. */
export async function bindDirect(
  bindings: SheetBindings,
  google: FakeGoogle,
  keyId: string,
  spreadsheetId: string,
): Promise<{ token: string; metadataId: number }> {
  const { binding, token } = await bindings.issue(keyId, spreadsheetId);
  const entry = google.addDeveloperMetadata(spreadsheetId, { key: BINDING_METADATA_KEY, value: token, visibility: 'DOCUMENT' });
  await bindings.verify(keyId, binding.id);
  return { token, metadataId: entry.metadataId };
}
