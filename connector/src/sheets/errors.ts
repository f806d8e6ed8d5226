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
