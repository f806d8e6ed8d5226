/**
 * In-memory indexes of the insurer register and the sanctions lists, rebuilt when the store says
 * the register changed (an import from the CLI runs in another process), checked at most every
 * `recheckMs`. Keeps name matching off the database on the hot path.
 *
 * Two views, one per key mode (docs/data-sources.md): a live key sees real rows only, never a demo
 * insurer or the demo sanctions list, so a live verdict rests on real sources or says which is
 * missing; a sandbox key sees everything, demo rows included, as it always has.
 */
import { COUNTRIES, type TCountry } from '../../../shared/policy.js';
import { InsurerIndex } from '../insurers/matcher.js';
import { SanctionsIndex } from '../sanctions/index.js';
import type { InsurerRecord, KeyMode, SanctionRecord, Store } from '../store/types.js';

export interface ReferenceView {
  insurers: InsurerIndex;
  sanctions: SanctionsIndex;
  /** Names of the sanctions lists this view holds; none: the sanctions check is `not_checked`. */
  sanctionLists: string[];
  /** Register rows this view holds per country; 0: no register is loaded for that country. */
  registerRows: Record<TCountry, number>;
}

export interface ReferenceData {
  live: ReferenceView;
  sandbox: ReferenceView;
}

/** The view a key of this mode may see: anything but a live key is the sandbox. */
export function viewFor(ref: ReferenceData, mode: KeyMode): ReferenceView {
  return mode === 'live' ? ref.live : ref.sandbox;
}

export function buildReferenceData(insurers: InsurerRecord[], sanctions: SanctionRecord[]): ReferenceData {
  const view = (rows: InsurerRecord[], lists: SanctionRecord[]): ReferenceView => {
    const registerRows = Object.fromEntries(COUNTRIES.map((c) => [c, 0])) as Record<TCountry, number>;
    for (const r of rows) registerRows[r.country] += 1;
    return {
      insurers: new InsurerIndex(rows),
      sanctions: new SanctionsIndex(lists),
      sanctionLists: [...new Set(lists.map((s) => s.list))].sort(),
      registerRows,
    };
  };
  return {
    live: view(
      insurers.filter((r) => !r.demo),
      sanctions.filter((s) => !s.demo),
    ),
    sandbox: view(insurers, sanctions),
  };
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

  /**
   * The reference data as of now: the version is read at once, whatever `recheckMs` says (after a read
   * already under way, which may have begun before the caller's moment). For work that must see an import
   * it was told of: a watch's re-check after a register change.
   */
  async fresh(): Promise<ReferenceData> {
    await this.loading?.catch(() => undefined);
    this.checkedAt = -Infinity;
    return this.get();
  }

  private async refresh(): Promise<ReferenceData> {
    const version = await this.store.insurers.version();
    this.checkedAt = this.now();
    if (this.current && version === this.version) return this.current;
    const rows: InsurerRecord[] = [];
    for (const c of COUNTRIES) rows.push(...(await this.store.insurers.listByCountry(c)));
    this.current = buildReferenceData(rows, await this.store.sanctions.all());
    this.version = version;
    return this.current;
  }
}
