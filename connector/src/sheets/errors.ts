/** The Sheets integration's error, apart from the API client so callers need not load googleapis. */
export class SheetsError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    /** True when trying again later may work (quota, outage); false for permission or not-found. */
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'SheetsError';
  }
}

/**
 * A Sheets call refused before it was made, because too many wait for the quota: of the caller's
 * key (`key`: that key's own backlog) or of all keys (`all`). Transient: try again after
 * `retryAfter` seconds. Not retried by the API wrapper, which would only wait in line again.
 */
export class SheetsBusyError extends SheetsError {
  constructor(
    readonly scope: 'key' | 'all',
    readonly retryAfter: number,
  ) {
    super(
      scope === 'key'
        ? 'Too many Google Sheets calls of this API key are waiting already.'
        : 'Too many Google Sheets calls are waiting on this connector.',
      null,
      true,
    );
    this.name = 'SheetsBusyError';
  }
}
