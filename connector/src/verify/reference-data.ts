/**
 * In-memory indexes of the insurer register and the sanctions list, rebuilt when the store says
 * the register changed (an import from the CLI runs in another process), checked at most every
 * `recheckMs`. Keeps name matching off the database on the hot path.
 */
import { COUNTRIES } from '../../../shared/policy.js';
import { InsurerIndex } from '../insurers/matcher.js';
import { SanctionsIndex } from '../sanctions/index.js';
import type { InsurerRecord, Store } from '../store/types.js';

export interface ReferenceData {
  insurers: InsurerIndex;
  sanctions: SanctionsIndex;
}

export class ReferenceDataCache {
  private current: ReferenceData | null = null;
  private version = -1;
  private checkedAt = 0;
  private loading: Promise<ReferenceData> | null = null;

  constructor(
    private readonly store: Pick<Store, 'insurers' | 'sanctions'>,
    private readonly recheckMs = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(): Promise<ReferenceData> {
    if (this.current && this.now() - this.checkedAt < this.recheckMs) return this.current;
    this.loading ??= this.refresh().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async refresh(): Promise<ReferenceData> {
    const version = await this.store.insurers.version();
    this.checkedAt = this.now();
    if (this.current && version === this.version) return this.current;
    const rows: InsurerRecord[] = [];
    for (const c of COUNTRIES) rows.push(...(await this.store.insurers.listByCountry(c)));
    this.current = { insurers: new InsurerIndex(rows), sanctions: new SanctionsIndex(await this.store.sanctions.all()) };
    this.version = version;
    return this.current;
  }
}
