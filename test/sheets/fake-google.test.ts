/**
 * The Sheets stand-in's developer-metadata rules, each broken on purpose through the real
 * googleapis client: a stand-in that let these through would let the binding tests pass against a
 * Google that does not exist. The rules and their sources are listed atop test/helpers/fake-google.ts.
 */
import { google as googleapis, type sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SheetsApi } from '../../connector/src/sheets/api.js';
import { readServiceAccount, serviceAccountAuth } from '../../connector/src/sheets/auth.js';
import { SheetsLimiter } from '../../connector/src/sheets/limiter.js';
import { ADDON_PROJECT, FakeGoogle } from '../helpers/fake-google.js';

const google = new FakeGoogle();
let sheets: sheets_v4.Sheets;
const SID = 'metadata-rules-sheet-01';

beforeAll(async () => {
  await google.start();
  sheets = googleapis.sheets({
    version: 'v4',
    auth: serviceAccountAuth(readServiceAccount(google.keyFile)) as never,
    rootUrl: `${google.url}/`,
    retry: false,
  });
  google.sheet(SID, 'Data', []);
  google.sheet(SID, 'Other', []);
});
afterAll(async () => google.stop());

const search = (dataFilters: sheets_v4.Schema$DataFilter[], spreadsheetId = SID) =>
  sheets.spreadsheets.developerMetadata.search({ spreadsheetId, requestBody: { dataFilters } });
async function status(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p;
    return { status: 200, message: '' };
  } catch (err) {
    const e = err as { status?: number; response?: { status?: number; data?: { error?: { message?: string; status?: string } } } };
    return {
      status: e.response?.status ?? e.status ?? 0,
      message: `${e.response?.data?.error?.status ?? ''} ${e.response?.data?.error?.message ?? ''}`,
    };
  }
}
const at = { metadataLocation: { spreadsheet: true }, locationMatchingStrategy: 'EXACT_LOCATION' } as const;

describe('Sheets stand-in: developer metadata', () => {
  it('visibility: DOCUMENT entries are seen by the service account; PROJECT entries only when its own project made them', async () => {
    const key = 'visibility.test';
    google.addDeveloperMetadata(SID, { key, value: 'document', visibility: 'DOCUMENT' });
    google.addDeveloperMetadata(SID, { key, value: 'project-of-the-addon', visibility: 'PROJECT', project: ADDON_PROJECT });
    google.addDeveloperMetadata(SID, { key, value: 'project-of-the-connector', visibility: 'PROJECT', project: google.project });
    const r = await search([{ developerMetadataLookup: { metadataKey: key } }]);
    expect(r.data.matchedDeveloperMetadata!.map((m) => m.developerMetadata!.metadataValue).sort()).toEqual([
      'document',
      'project-of-the-connector',
    ]);
    // Asking for PROJECT visibility does not reveal another project's entries either.
    const p = await search([{ developerMetadataLookup: { metadataKey: key, visibility: 'PROJECT' } }]);
    expect(p.data.matchedDeveloperMetadata!.map((m) => m.developerMetadata!.metadataValue)).toEqual(['project-of-the-connector']);
  });

  it('a lookup matches all the fields it gives; the response lists entries matching any filter, with the filters each matched', async () => {
    const key = 'fields.test';
    const a = google.addDeveloperMetadata(SID, { key, value: 'a', visibility: 'DOCUMENT' });
    google.addDeveloperMetadata(SID, { key, value: 'b', visibility: 'DOCUMENT' });
    google.addDeveloperMetadata(SID, { key, value: 'on-a-sheet', visibility: 'DOCUMENT', sheet: 'Other' });
    const byValue = { developerMetadataLookup: { metadataKey: key, metadataValue: 'a' } };
    const byId = { developerMetadataLookup: { metadataId: a.metadataId } };
    const r = await search([byValue, byId, { developerMetadataLookup: { metadataKey: key, ...at } }]);
    const got = Object.fromEntries(
      r.data.matchedDeveloperMetadata!.map((m) => [m.developerMetadata!.metadataValue, m.dataFilters!.length]),
    );
    // "a" matched three filters, "b" one (the location lookup); the sheet-level entry none of them.
    expect(got).toEqual({ a: 3, b: 1 });
    expect(r.data.matchedDeveloperMetadata![0]!.developerMetadata).toEqual({
      metadataId: a.metadataId,
      metadataKey: key,
      metadataValue: 'a',
      location: { locationType: 'SPREADSHEET', spreadsheet: true },
      visibility: 'DOCUMENT',
    });
    const sheetLevel = await search([{ developerMetadataLookup: { metadataKey: key, locationType: 'SHEET' } }]);
    expect(sheetLevel.data.matchedDeveloperMetadata!.map((m) => m.developerMetadata!.metadataValue)).toEqual(['on-a-sheet']);
  });

  it('no match answers {} (an empty list is left out of proto3 JSON)', async () => {
    const r = await search([{ developerMetadataLookup: { metadataKey: 'nothing.here' } }]);
    expect(r.status).toBe(200);
    expect(r.data).toEqual({});
  });

  it('refuses the DataFilters and lookups the reference forbids (400)', async () => {
    const bad: [string, sheets_v4.Schema$DataFilter][] = [
      ['two kinds of filter in one DataFilter', { developerMetadataLookup: { metadataKey: 'k' }, a1Range: 'Data!A1' }],
      ['an empty DataFilter', {}],
      ['a strategy without a location', { developerMetadataLookup: { metadataKey: 'k', locationMatchingStrategy: 'EXACT_LOCATION' } }],
      ['a locationType with EXACT_LOCATION', { developerMetadataLookup: { metadataKey: 'k', locationType: 'SPREADSHEET', ...at } }],
      [
        'locationType SPREADSHEET with the default INTERSECTING strategy',
        { developerMetadataLookup: { metadataKey: 'k', locationType: 'SPREADSHEET' } },
      ],
      [
        'locationType SPREADSHEET at a sheet location',
        {
          developerMetadataLookup: {
            metadataKey: 'k',
            locationType: 'SPREADSHEET',
            metadataLocation: { sheetId: 0 },
            locationMatchingStrategy: 'INTERSECTING_LOCATION',
          },
        },
      ],
    ];
    for (const [why, filter] of bad) expect((await status(search([filter]))).status, why).toBe(400);
  });

  it('a spreadsheet not shared with the service account answers 403 PERMISSION_DENIED; one that does not exist, 404', async () => {
    const PRIVATE = 'metadata-private-sheet';
    google.sheet(PRIVATE, 'Data', [['secret']]);
    google.share(PRIVATE, false);
    expect(await status(search([{ developerMetadataLookup: { metadataKey: 'k' } }], PRIVATE))).toEqual({
      status: 403,
      message: 'PERMISSION_DENIED The caller does not have permission',
    });
    expect((await status(sheets.spreadsheets.values.get({ spreadsheetId: PRIVATE, range: "'Data'!A:A" }))).status).toBe(403);
    google.share(PRIVATE, true);
    expect((await status(search([{ developerMetadataLookup: { metadataKey: 'k' } }], PRIVATE))).status).toBe(200);
    expect((await status(search([{ developerMetadataLookup: { metadataKey: 'k' } }], 'no-such-spreadsheet-x'))).status).toBe(404);
  });

  it("the connector's own lookup is one the reference allows, and sees only spreadsheet-level entries of its key that it may see", async () => {
    const SHEET = 'metadata-connector-sheet';
    google.sheet(SHEET, 'Data', []);
    google.addDeveloperMetadata(SHEET, { key: 'covercheck.binding', value: 'spreadsheet-document', visibility: 'DOCUMENT' });
    google.addDeveloperMetadata(SHEET, { key: 'covercheck.binding', value: 'sheet-document', visibility: 'DOCUMENT', sheet: 'Data' });
    google.addDeveloperMetadata(SHEET, { key: 'covercheck.binding', value: 'spreadsheet-project', visibility: 'PROJECT' });
    google.addDeveloperMetadata(SHEET, { key: 'another.key', value: 'other', visibility: 'DOCUMENT' });
    const limiter = new SheetsLimiter({ perProject: 1000, perSpreadsheet: 1000, windowMs: 1000 });
    const api = new SheetsApi(
      { auth: serviceAccountAuth(readServiceAccount(google.keyFile)), rootUrl: `${google.url}/`, limiter },
      google.serviceEmail,
    );
    expect(await api.spreadsheetMetadataValues(SHEET, 'covercheck.binding')).toEqual(['spreadsheet-document']);
    expect(await api.spreadsheetMetadataValues(SHEET, 'nothing')).toEqual([]);
    await limiter.stop();
  });
});
