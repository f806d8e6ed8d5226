/**
 * Spreadsheet bindings: a key may write into a spreadsheet only once someone with edit access has
 * written the key's binding token into that spreadsheet's developer metadata, and only while it is
 * still there (docs/sheets-binding.md). The proof is read back through the Sheets API; a binding
 * found less than `recheckMs` ago is trusted without asking again.
 *
 * Whatever the reason a spreadsheet is not bound (no binding, token absent, spreadsheet not
 * shared or not there), the answer is the same, so it tells nothing about a spreadsheet the key
 * may not use.
 *
 * A check asked for by a request (verify, or a submission naming a stale binding) spends one of the
 * key's `checksPerMinute`: asking needs only a spreadsheet id, so without a budget one key could
 * keep the Sheets quota busy with checks. Checks for the writers (isBound) spend none; like every
 * call, both take the key's own turn at the quota (limiter.ts).
 */
import crypto from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { BINDING_METADATA_KEY } from '../../../shared/sheets.js';
import { AppError, notFoundForKey } from '../errors.js';
import { createBudget } from '../redis/rate-limiter.js';
import type { SheetBindingRecord, Store } from '../store/types.js';
import type { SheetsApi } from './api.js';
import { SheetsBusyError, SheetsError } from './errors.js';

const TOKEN_PREFIX = 'cvb_';

const hashBindingToken = (token: string): string => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

/** Told to a caller whose spreadsheet is not bound, whatever the reason. */
function notBoundMessage(spreadsheetId: string, serviceEmail: string): string {
  return (
    `Spreadsheet ${spreadsheetId} is not connected to this API key, so nothing is written into it. ` +
    `Share it with ${serviceEmail} as an editor, then open it in Google Sheets and choose ` +
    'Extensions > Covercheck > Connect this spreadsheet (you need edit access).'
  );
}

/** The error a write-back or a schedule run records when its spreadsheet is no longer bound: nothing about the spreadsheet. */
export const NO_LONGER_BOUND =
  'Not written: this API key is not connected to the spreadsheet (any more). Connect it again from the spreadsheet: Extensions > Covercheck > Connect this spreadsheet.';

export interface BindingDeps {
  store: Pick<Store, 'sheetBindings'>;
  api: Pick<SheetsApi, 'forKey' | 'serviceEmail'>;
  now: () => Date;
  /** Where the checks per key are counted; default in this process, `checksPerMinute` a minute. */
  checkBudget?: RateLimiterAbstract;
}

export interface BindingOptions {
  recheckMs: number;
  /** Checks a key may ask for in a minute (verify, submissions with a stale binding); absent: no limit. */
  checksPerMinute?: number;
}

export class SheetBindings {
  private readonly checkBudget: RateLimiterAbstract | null;

  constructor(
    private readonly deps: BindingDeps,
    private readonly opts: BindingOptions,
  ) {
    this.checkBudget =
      deps.checkBudget ??
      (opts.checksPerMinute ? createBudget(null, { keyPrefix: 'sheets_binding_check', points: opts.checksPerMinute, duration: 60 }) : null);
  }

  /** A new token for (key, spreadsheet): the only time it exists outside the spreadsheet. */
  async issue(keyId: string, spreadsheetId: string): Promise<{ binding: SheetBindingRecord; token: string }> {
    const token = `${TOKEN_PREFIX}${crypto.randomBytes(32).toString('base64url')}`;
    const binding = await this.deps.store.sheetBindings.issue({
      id: `sbd_${crypto.randomUUID().replace(/-/g, '')}`,
      key_id: keyId,
      spreadsheet_id: spreadsheetId,
      token_hash: hashBindingToken(token),
      created_at: this.deps.now().toISOString(),
    });
    return { binding, token };
  }

  /** Looks for the binding's token in its spreadsheet now; the binding as it stands after. */
  async verify(keyId: string, bindingId: string): Promise<SheetBindingRecord> {
    const binding = await this.get(keyId, bindingId);
    if (!(await this.checkOrExplain(binding))) throw this.notBound(binding.spreadsheet_id);
    return this.get(keyId, bindingId);
  }

  list(keyId: string): Promise<SheetBindingRecord[]> {
    return this.deps.store.sheetBindings.list(keyId);
  }

  /** The key's binding; another key's id is answered like an unknown one, so its existence is not revealed. */
  async get(keyId: string, bindingId: string): Promise<SheetBindingRecord> {
    const binding = await this.deps.store.sheetBindings.get(bindingId);
    if (!binding || binding.key_id !== keyId) throw notFoundForKey('binding', bindingId);
    return binding;
  }

  /** Unbinds at once: the next write-back, schedule run or submission is refused without asking Google. */
  async remove(keyId: string, bindingId: string): Promise<void> {
    if (!(await this.deps.store.sheetBindings.delete(bindingId, keyId))) throw notFoundForKey('binding', bindingId);
  }

  /**
   * For writers (write-backs, schedule runs): true when the spreadsheet is bound to the key. No
   * binding: false without calling the API. Throws SheetsError when the API can't answer (quota,
   * outage), so the caller retries rather than gives up.
   */
  async isBound(keyId: string, spreadsheetId: string): Promise<boolean> {
    const binding = await this.deps.store.sheetBindings.find(keyId, spreadsheetId);
    if (!binding) return false;
    return this.fresh(binding) || this.check(binding);
  }

  /** For submissions: refuses (AppError) unless the spreadsheet is bound to the key. */
  async require(keyId: string, spreadsheetId: string): Promise<void> {
    const binding = await this.deps.store.sheetBindings.find(keyId, spreadsheetId);
    if (!binding) throw this.notBound(spreadsheetId);
    if (this.fresh(binding)) return;
    if (!(await this.checkOrExplain(binding))) throw this.notBound(spreadsheetId);
  }

  private fresh(b: SheetBindingRecord): boolean {
    return b.status === 'active' && b.verified_at !== null && this.deps.now().getTime() - Date.parse(b.verified_at) < this.opts.recheckMs;
  }

  /** Whether the binding's token is in the spreadsheet now, recorded on the binding. */
  private async check(b: SheetBindingRecord): Promise<boolean> {
    const startedAt = this.deps.now().toISOString();
    let values: string[];
    try {
      values = await this.deps.api.forKey(b.key_id).spreadsheetMetadataValues(b.spreadsheet_id, BINDING_METADATA_KEY);
    } catch (err) {
      // Not shared with the service account, or no such spreadsheet: simply not bound.
      if (!(err instanceof SheetsError) || (err.status !== 403 && err.status !== 404)) throw err;
      values = [];
    }
    const want = Buffer.from(b.token_hash, 'hex');
    // Every value is hashed and compared in constant time: no early exit that times the match.
    let found = false;
    for (const v of values) found = crypto.timingSafeEqual(Buffer.from(hashBindingToken(v), 'hex'), want) || found;
    await this.deps.store.sheetBindings.recordCheck(b.id, b.token_hash, found, startedAt);
    return found;
  }

  /**
   * check() for callers answering a request: spends one of the key's checks first; an API that can't
   * answer becomes a 503 with nothing of Google's message; a refusal for too many calls waiting, a
   * 429 (the key's own backlog) or a 503 (everyone's).
   */
  private async checkOrExplain(b: SheetBindingRecord): Promise<boolean> {
    await this.spendCheck(b.key_id);
    try {
      return await this.check(b);
    } catch (err) {
      if (err instanceof SheetsBusyError) {
        throw err.scope === 'key'
          ? new AppError(
              'rate_limit_exceeded',
              `Too many Google Sheets calls of this API key are waiting already. Retry after ${err.retryAfter} s.`,
              { retryAfter: err.retryAfter, cause: err },
            )
          : new AppError(
              'service_unavailable',
              `Too many Google Sheets calls are waiting on this connector. Retry after ${err.retryAfter} s.`,
              { retryAfter: err.retryAfter, cause: err },
            );
      }
      throw new AppError(
        'service_unavailable',
        'The Google Sheets API could not be reached to check that the spreadsheet is connected to this key; try again shortly.',
        {
          internal: (err as Error).message,
          retryAfter: 10,
          cause: err,
        },
      );
    }
  }

  private async spendCheck(keyId: string): Promise<void> {
    if (!this.checkBudget) return;
    try {
      await this.checkBudget.consume(keyId);
    } catch (rej) {
      if (!(rej instanceof RateLimiterRes)) throw rej;
      const retryAfter = Math.max(1, Math.ceil(rej.msBeforeNext / 1000));
      throw new AppError(
        'rate_limit_exceeded',
        `Too many spreadsheet binding checks for this API key (at most ${this.opts.checksPerMinute ?? this.checkBudget.points} a minute). Retry after ${retryAfter} s.`,
        { retryAfter },
      );
    }
  }

  private notBound(spreadsheetId: string): AppError {
    return new AppError('sheet_not_bound', notBoundMessage(spreadsheetId, this.deps.api.serviceEmail));
  }
}
