/** English: UK policy documents, and English-language documents of German and French insurers. */
import type { LanguagePack } from '../types.js';

export const en = {
  code: 'en',
  name: 'English',
  tesseract: 'eng',
  months: ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'],
  monthVariants: {},
  monthAbbreviations: { jan: 1, feb: 2, mar: 3, apr: 4, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12 },
  indicatorWords: ['the', 'your', 'policy', 'insurance', 'insurer', 'cover', 'date', 'number', 'registration', 'vehicle', 'premium', 'of', 'and', 'from', 'to'],
  typeWords: {
    motor: { words: ['motor', 'car', 'vehicle', 'auto\\w*', 'driver'] },
    travel: { words: ['travel\\w*', 'trip', 'holiday', 'destination', 'territorial limits'], strong: ['travel medical'] },
    health: { words: ['health', 'medical', 'hospital'] },
  },
  labels: {
    policy: [/\b(?:policy|certificate|membership|member|contract|agreement)\s*(?:number|no\b\.?|n[o°º*]\.?|ref(?:erence)?\b\.?|#)/],
    insurer: [/\b(?:insurer|insurance company|underwritten by|insured by)\b/],
    start: [/\b(?:start date|effective date|effective from|cover starts|date of commencement|commencement date|inception date|valid from)\b/],
    end: [/\b(?:end date|expiry date|cover ends|date of expiry|expiry|expires|valid until|valid to)\b/],
    period: [/\b(?:period of (?:cover|insurance)|cover period|insurance period|cover runs|period)\b/],
    registration: [/\b(?:vehicle registration|registration(?: mark| number| no\b\.?)?|reg\.? no\b\.?|number plate)\b/],
  },
  copulas: ['is', 'are'],
  periodConnectors: ['to', 'until'],
  notPolicyContext: ['customer', 'client', 'account', 'tel', 'phone', 'fax', 'registered', 'premium', 'birth', 'iban', 'bic'],
  legalForms: ['ltd', 'limited', 'plc', 'llp', 'lp', 'inc', 'incorporated', 'corp', 'co', 'company', 'dac', 'public limited company', 'designated activity company'],
  stopWords: ['the', 'of', 'and'],
  sheetHeaders: {
    policy: ['policy', 'policies', 'certificate'],
    number: ['number', 'no', 'num', 'id', 'ref', 'reference', '#'],
    policyNumber: [],
    type: ['type', 'product', 'line', 'cover'],
    country: ['country', 'nation'],
    provider: ['provider', 'insurer', 'insurance company', 'carrier'],
  },
  sheetNotes: {
    heading: { unverified: 'Covercheck: not verified. Why:', inconclusive: 'Covercheck: inconclusive. Why:' },
    checks: { format: 'Number format', register: '{regulator} register', registry: 'Policy registry', sanctions: 'Sanctions list' },
    outcomes: { pass: 'passed', fail: 'failed', warn: 'warning', unavailable: 'unavailable', skipped: 'skipped' },
    flagsLabel: 'Warnings',
    flags: {
      expired: 'expired', not_yet_active: 'not yet active', cancelled: 'cancelled', suspended: 'suspended', sanctioned: 'insurer sanctioned',
      insurer_not_authorised: 'insurer not authorised', provider_mismatch: 'provider does not match', provider_not_found: 'provider not found',
      type_mismatch: 'insurance type does not match', registry_unavailable: 'registry unavailable', no_registry_coverage: 'no registry covers this',
      demo_data: 'demo data', document_mismatch: 'document does not match', sandbox: 'sandbox key (demo data only)',
    },
    confidence: 'Confidence',
  },
} as const satisfies LanguagePack;
