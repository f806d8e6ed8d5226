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
    insurer: [/\b(?:insurer|insurers|insurance company|underwritten by|insured by|underwriter|on behalf of)\b/],
    start: [/\b(?:start date|cover start|membership start|joined|effective date|effective from|cover starts|date of commencement|commencement date|inception date|valid from)\b/],
    end: [/\b(?:end date|expiry date|cover ends|date of expiry|expiry|expires|valid until|valid to|renewal date|renewal|date of renewal|cover end|end of cover)\b/],
    period: [/\b(?:period of (?:cover|insurance)|cover period|insurance period|cover runs|period)\b/],
    registration: [/\b(?:vehicle registration|registration(?: mark| number| no\b\.?)?|reg\.? no\b\.?|number plate)\b/],
  },
  copulas: ['is', 'are'],
  periodConnectors: ['to', 'until'],
  notPolicyContext: ['customer', 'client', 'account', 'tel', 'phone', 'fax', 'registered', 'premium', 'birth', 'iban', 'bic'],
  notPeriodContext: ['issue', 'issued', 'birth', 'born', 'printed', 'signed', 'registered', 'first registered', 'manufacture'],
  secondaryNumberWords: ['certificate', 'reference', 'ref', 'customer', 'account', 'quote'],
  insurerWords: ['insurance', 'assurance', 'underwriting', 'underwriters', 'mutual', 'healthcare', 'indemnity', "lloyd's"],
  notInsurerContext: ['trading name', 'trading style', 'regulated by', 'authorised by', 'authorized by', 'broker', 'intermediary', 'administered by', 'arranged by', 'financial conduct authority', 'prudential regulation authority', 'registered office', 'registered in'],
  documentTitleWords: ['certificate', 'schedule', 'confirmation', 'summary', 'statement', 'wording', 'booklet', 'card', 'details', 'cover'],
  personTitles: ['mr', 'mrs', 'ms', 'miss', 'dr', 'sir'],
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
} as const satisfies LanguagePack;
