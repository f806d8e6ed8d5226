/**
 * The Sheets API as Covercheck uses it: read a column, write many ranges in one call, clear, write
 * a block, list sheet titles, read the spreadsheet's developer metadata. Each call is limited
 * (SheetsLimiter) and retried on 429 and 5xx with backoff, honouring Retry-After; other failures
 * become a SheetsError with advice a user can act on. Calls are made for an API key (`forKey`), whose
 * turn at the quota they take.
 */
import { google, type sheets_v4 } from 'googleapis';
import { a1 } from './a1.js';
import { SheetsBusyError, SheetsError } from './errors.js';
import type { SheetsLimiter } from './limiter.js';

export { SheetsError };

export interface SheetsApiOptions {
  auth: InstanceType<typeof google.auth.JWT>;
  rootUrl?: string;
  limiter: SheetsLimiter;
  /** Attempts per call on 429/5xx. */
  maxAttempts?: number;
  /** Base backoff when no Retry-After is given. */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * One request's deadline (gaxios's `timeout`); past it the call is retried like a 5xx. Without
   * one, a connection that Google accepts and never answers would hold its caller for good.
   */
  timeoutMs?: number;
}

/** A request's deadline when none is configured (COVERCHECK_SHEETS_TIMEOUT_MS's default). */
export const DEFAULT_TIMEOUT_MS = 30_000;

export type CellValue = string | number | null;

export class SheetsApi {
  private readonly sheets: sheets_v4.Sheets;

  constructor(
    private readonly opts: SheetsApiOptions,
    serviceEmail: string,
    /** The key the calls are made for (null: none, for tools and tests); see forKey. */
    private readonly keyId: string | null = null,
    client?: sheets_v4.Sheets,
  ) {
    // No `signal` ever goes with `timeout`: gaxios would compose the two with AbortSignal.any, which
    // loses the timeout after a garbage collection (connector/src/deadline.ts). Alone, the timeout
    // signal is fetch's own and lives until it fires.
    this.sheets =
      client ??
      google.sheets({
        version: 'v4',
        auth: opts.auth as never,
        ...(opts.rootUrl ? { rootUrl: opts.rootUrl } : {}),
        retry: false,
        timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      });
    this.serviceEmail = serviceEmail;
  }

  readonly serviceEmail: string;

  /** The same API, its calls made for `keyId`: they wait in that key's turn and count to its share. */
  forKey(keyId: string): SheetsApi {
    return new SheetsApi(this.opts, this.serviceEmail, keyId, this.sheets);
  }

  private async call<T>(spreadsheetId: string, what: string, fn: () => Promise<{ data: T }>): Promise<T> {
    const max = this.opts.maxAttempts ?? 5;
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.opts.limiter.schedule({ keyId: this.keyId, spreadsheetId }, fn)).data;
      } catch (err) {
        if (err instanceof SheetsBusyError) throw err;
        const e = err as { status?: number; response?: { status?: number; headers?: unknown }; message?: string };
        const status = e.response?.status ?? e.status ?? null;
        const transient = status === null || status === 429 || status >= 500;
        if (!transient || attempt >= max) throw this.explain(what, spreadsheetId, status, e.message ?? String(err), transient);
        // Headers may come from another realm than this one's global Headers: read it by shape.
        const headers = e.response?.headers as { get?: (n: string) => string | null } | Record<string, string> | undefined;
        const retryAfter = Number(
          typeof headers?.get === 'function'
            ? headers.get('retry-after')
            : (headers as Record<string, string> | undefined)?.['retry-after'],
        );
        const base = this.opts.backoffMs ?? 1000;
        await sleep(
          Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : base * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4),
        );
      }
    }
  }

  private explain(what: string, spreadsheetId: string, status: number | null, message: string, transient: boolean): SheetsError {
    if (status === 403)
      return new SheetsError(`${what}: permission denied. Share the spreadsheet with ${this.serviceEmail} as an editor.`, status, false);
    if (status === 404)
      return new SheetsError(`${what}: spreadsheet ${spreadsheetId} not found. Check the id in the sheet's URL.`, status, false);
    if (status === 400)
      return new SheetsError(`${what}: the Sheets API refused the request (${message}). Check the sheet name and columns.`, status, false);
    return new SheetsError(`${what}: ${status ? `HTTP ${status}` : 'no answer'} from the Sheets API (${message}).`, status, transient);
  }

  async sheetTitles(spreadsheetId: string): Promise<string[]> {
    const data = await this.call(spreadsheetId, 'Reading the spreadsheet', () =>
      this.sheets.spreadsheets.get({ spreadsheetId, fields: 'sheets.properties.title' }),
    );
    return (data.sheets ?? []).map((s) => s.properties?.title ?? '').filter(Boolean);
  }

  /** The column's values from the top, as text (empty cells as ''). */
  async readColumn(spreadsheetId: string, sheet: string, column: string): Promise<string[]> {
    const data = await this.call(spreadsheetId, `Reading column ${column} of ${sheet}`, () =>
      this.sheets.spreadsheets.values.get({
        spreadsheetId,
        range: a1(sheet, `${column}:${column}`),
        majorDimension: 'COLUMNS',
        valueRenderOption: 'FORMATTED_VALUE',
      }),
    );
    return ((data.values?.[0] ?? []) as unknown[]).map((v) => (v === null || v === undefined ? '' : String(v)));
  }

  /** Many ranges in one values.batchUpdate call; null cells are left as they are. */
  async writeRanges(spreadsheetId: string, data: { range: string; values: CellValue[][] }[]): Promise<number> {
    const res = await this.call(spreadsheetId, 'Writing results', () =>
      this.sheets.spreadsheets.values.batchUpdate({ spreadsheetId, requestBody: { valueInputOption: 'RAW', data } }),
    );
    return res.totalUpdatedCells ?? 0;
  }

  async clear(spreadsheetId: string, range: string): Promise<void> {
    await this.call(spreadsheetId, `Clearing ${range}`, () => this.sheets.spreadsheets.values.clear({ spreadsheetId, range }));
  }

  /**
   * Values of the developer metadata under `metadataKey` attached to the spreadsheet itself (not to
   * a sheet, row or column), as spreadsheets.developerMetadata.search returns them to this
   * service account: DOCUMENT-visible entries, and PROJECT-visible ones only where its own project
   * made them (Apps Script reference, DeveloperMetadataVisibility).
   *
   * The lookup names the location and EXACT_LOCATION, leaving locationType unset: the Sheets API
   * reference (DataFilter, DeveloperMetadataLookup) refuses locationType SPREADSHEET with the
   * default INTERSECTING strategy, and any locationType with EXACT_LOCATION.
   */
  async spreadsheetMetadataValues(spreadsheetId: string, metadataKey: string): Promise<string[]> {
    const data = await this.call(spreadsheetId, "Reading the spreadsheet's developer metadata", () =>
      this.sheets.spreadsheets.developerMetadata.search({
        spreadsheetId,
        requestBody: {
          dataFilters: [
            {
              developerMetadataLookup: { metadataKey, metadataLocation: { spreadsheet: true }, locationMatchingStrategy: 'EXACT_LOCATION' },
            },
          ],
        },
      }),
    );
    // An empty result is `{}`: proto3 JSON leaves out an empty list.
    return (data.matchedDeveloperMetadata ?? []).flatMap((m) =>
      typeof m.developerMetadata?.metadataValue === 'string' ? [m.developerMetadata.metadataValue] : [],
    );
  }

  /** Adds a sheet named `title` to the spreadsheet (spreadsheets.batchUpdate, addSheet). */
  async addSheet(spreadsheetId: string, title: string): Promise<void> {
    await this.call(spreadsheetId, `Adding the sheet ${title}`, () =>
      this.sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests: [{ addSheet: { properties: { title } } }] } }),
    );
  }

  async update(spreadsheetId: string, range: string, values: CellValue[][]): Promise<void> {
    await this.call(spreadsheetId, `Writing ${range}`, () =>
      this.sheets.spreadsheets.values.update({ spreadsheetId, range, valueInputOption: 'RAW', requestBody: { values } }),
    );
  }
}
