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
  coverage: {
    labels: {
      motor_cover: ['type of cover', 'level of cover', 'cover level', 'cover type', 'cover(?=\\s*:)'],
      trip_type: ['type of policy', 'policy type', 'type of cover', 'cover type', 'trip type'],
      region: ['territorial limits', 'area of travel', 'geographical area', 'area(?=\\s*[:\\d]|   )', 'region', 'destination'],
      health_plan: ['your plan', 'plan name', 'plan(?=\\s*[:]|   )', 'level of cover', 'cover level', 'scheme', 'product'],
    },
    motorCover: {
      third_party: ['third[- ]party only', 'third[- ]party cover', 'tpo'],
      third_party_fire_theft: ['third[- ]party,? fire (?:and|&) theft', 'tpft'],
      comprehensive: ['comprehensive'],
    },
    tripTypes: {
      single_trip: ['single[- ]trip', 'single journey', 'one trip'],
      annual_multi_trip: ['annual multi[- ]?trip', 'multi[- ]?trip', 'annual (?:travel|cover|policy)'],
    },
    regions: {
      domestic: ['uk only', 'united kingdom only', 'within the uk', 'home country only'],
      europe: ['europe(?:an)?'],
      worldwide_excluding_usa: ['world(?:wide)?,? (?:excluding|excl\\.?|except|not including) (?:the )?(?:usa|us|united states)'],
      worldwide: ['worldwide', 'world ?wide'],
    },
    negations: ['not included', 'not covered', 'not selected', 'excluded', 'no cover', 'none'],
    elsewhere: ['other (?:vehicle|car)', 'not belonging to', 'any (?:private )?(?:motor )?car', 'third part(?:y|ies) to make'],
  },
  sheetHeaders: {
    policy: ['policy', 'policies', 'certificate'],
    number: ['number', 'no', 'num', 'id', 'ref', 'reference', '#'],
    policyNumber: [],
    type: ['type', 'product', 'line', 'cover'],
    country: ['country', 'nation'],
    provider: ['provider', 'insurer', 'insurance company', 'carrier'],
  },
} as const satisfies LanguagePack;
