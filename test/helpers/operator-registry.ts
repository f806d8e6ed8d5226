/**
 * A registry extract as an operator would import it (`npm run registry:import`, not demo): what a live
 * key needs to get a charged verified or unverified answer, since live keys never see the demo rows
 * (docs/data-sources.md). Its numbers differ from the demo rows' so sandbox keys on the same server keep
 * theirs; its UK insurers are real FRNs of the shipped UK register extract.
 */
import fs from 'node:fs';
import type { Store } from '../../connector/src/store/types.js';
import { parseRegistryCsv } from '../../connector/src/verify/registry/import.js';

const FILE = new URL('../fixtures/registry/operator_policies.csv', import.meta.url);

/** UK motor, active, insurer U K Insurance Limited (FRN 202810). */
export const OPERATOR_UK_MOTOR = { policy_number: 'UKO-1000-0001', country: 'UK', insurance_type: 'motor' } as const;
/** DE motor, active, HDI Global SE (5096). */
export const OPERATOR_DE_MOTOR = { policy_number: 'KFZ-5096-900001', country: 'DE', insurance_type: 'motor' } as const;

export async function importOperatorRegistry(store: Pick<Store, 'registry'>): Promise<void> {
  const { rows, coverage } = parseRegistryCsv(fs.readFileSync(FILE, 'utf8'), {
    source: 'operator-extract',
    demo: false,
    now: new Date().toISOString(),
  });
  await store.registry.upsertMany(rows);
  await store.registry.setCoverage(coverage);
}

/** The demo insurers' stand-ins among the real UK firms of the shipped extract, by role. */
const REAL_UK_INSURER: Record<string, string> = {
  'DEMO-UK-0001': '202810', // U K Insurance Limited, authorised
  'DEMO-UK-0002': '202965', // Liverpool Victoria Insurance Company Limited
  'DEMO-UK-0003': '113849', // Hiscox Insurance Company Limited
  'DEMO-UK-0004': '400057', // Vitality Health Limited
  'DEMO-UK-0005': '202608', // Western Provident Association Limited
  'DEMO-UK-0007': '203342', // no longer authorised, as the demo insurer is not authorised
};

/**
 * An operator's extract that holds the demo policy numbers too, as real rows beside the demo ones (the
 * store keeps both: store/types RegistryStore). For suites about something other than verdicts (the
 * add-on, load) that want the demo numbers' verdicts on a live key as well as on a sandbox key. UK
 * insurers are mapped to real firms; DEMO-UK-0008 (the demo sanctioned one) stays unknown to live keys.
 */
export async function importDemoNumbersAsReal(store: Pick<Store, 'registry'>): Promise<void> {
  const demo = new URL('../../connector/data/registry/demo_policies.csv', import.meta.url);
  const { rows, coverage } = parseRegistryCsv(fs.readFileSync(demo, 'utf8'), {
    source: 'operator-extract',
    demo: false,
    now: new Date().toISOString(),
  });
  await store.registry.upsertMany(
    rows.map((r) => ({ ...r, insurer_reference: (r.insurer_reference && REAL_UK_INSURER[r.insurer_reference]) ?? r.insurer_reference })),
  );
  await store.registry.setCoverage(coverage);
}
