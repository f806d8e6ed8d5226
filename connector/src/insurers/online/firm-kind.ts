/** Tells an insurer from an insurance intermediary by the permissions the FCA register lists for a firm. */

export type FirmKind = 'insurer' | 'intermediary' | 'unknown';

/**
 * The rule, from the Regulated Activities Order (FSMA 2000 (Regulated Activities) Order 2001) as the
 * FCA register names its activities:
 * - insurer: the firm may effect or carry out contracts of insurance (article 10), i.e. it carries
 *   the risk;
 * - intermediary: it may not, but it may distribute insurance: assist in the administration and
 *   performance of a contract of insurance (article 39A), or deal as agent, arrange, make
 *   arrangements or advise (articles 21, 25(1), 25(2), 53) where the permission's investment types
 *   include a contract of insurance (these four cover shares and loans too, so the name alone says
 *   nothing); the insurance distribution activities of the FCA's Perimeter Guidance, PERG 5.2;
 * - unknown: neither (no permissions recorded, only other business such as credit or Lloyd's
 *   underwriting agency), or the list was not read whole.
 * Permission names and their "Investment Type" entries as the live API gives them: release-art/fca-api,
 * tests/units/test_raw/resources/test_firm_methods.py/TestFirmMethods/test_get_firm_permissions_success/
 * (an insurer holding both kinds) and tests/units/test_client/resources/test_get_firm_resource.py/
 * TestRandomFirmDetails/test_get_firm_permissions[122702]/ (a bank distributing insurance).
 */
const INSURER_ACTIVITIES = ['effecting contracts of insurance', 'carrying out contracts of insurance'];
const INSURANCE_ONLY_DISTRIBUTION = ['assisting in the administration and performance of a contract of insurance'];
const DISTRIBUTION_ACTIVITIES = [
  'dealing in investments as agent',
  'arranging (bringing about) deals in investments',
  'making arrangements with a view to transactions in investments',
  'advising on investments',
];
/** Investment types that are contracts of insurance: "Non-investment insurance contracts", "Life Policy", "Pure protection contract", ... */
const INSURANCE_INVESTMENT_TYPE = /insurance|life polic|pure protection/i;

/** A permission's details as listed: `[{"Customer Type": [...]}, {"Investment Type": [...]}, {"Limitation": [...]}]`. */
function investmentTypes(details: unknown): string[] {
  if (!Array.isArray(details)) return [];
  return details.flatMap((d) => {
    const types = d && typeof d === 'object' ? (d as Record<string, unknown>)['Investment Type'] : undefined;
    return Array.isArray(types) ? types.filter((t): t is string => typeof t === 'string') : [];
  });
}

const startsWithAny = (name: string, prefixes: string[]) => prefixes.some((p) => name.startsWith(p));

/**
 * `permissions` maps each permission's name to its details; `complete` is false when some of the
 * list's pages were not read, so that an insurer's permission might be among them.
 */
export function firmKindFromPermissions(permissions: ReadonlyMap<string, unknown>, complete: boolean): FirmKind {
  let distributes = false;
  for (const [rawName, details] of permissions) {
    const name = rawName.trim().toLowerCase();
    if (startsWithAny(name, INSURER_ACTIVITIES)) return 'insurer';
    if (startsWithAny(name, INSURANCE_ONLY_DISTRIBUTION)) distributes = true;
    else if (startsWithAny(name, DISTRIBUTION_ACTIVITIES) && investmentTypes(details).some((t) => INSURANCE_INVESTMENT_TYPE.test(t)))
      distributes = true;
  }
  return distributes && complete ? 'intermediary' : 'unknown';
}
