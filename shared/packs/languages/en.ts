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
  // The UK's nations are typed for it (the FCA and the MID cover all four); "Ireland" alone is the Republic.
  countryNames: {
    UK: ['United Kingdom', 'Great Britain', 'Britain', 'United Kingdom of Great Britain and Northern Ireland', 'England', 'Scotland', 'Wales', 'Northern Ireland'],
    DE: ['Germany', 'Federal Republic of Germany'],
    FR: ['France', 'French Republic'],
  },
  insuranceTypeWords: {
    motor: ['car', 'car insurance', 'auto', 'automobile', 'vehicle', 'vehicle insurance', 'motor insurance', 'motor vehicle'],
    travel: ['travel insurance', 'trip', 'holiday', 'holiday insurance'],
    health: ['medical', 'medical insurance', 'private medical', 'private medical insurance', 'PMI', 'health insurance', 'private health insurance'],
  },
  labels: {
    policy: [/\b(?:policy|certificate|membership|member|contract|agreement)\s*(?:number|no\b\.?|n[o°º*]\.?|ref(?:erence)?\b\.?|#)/],
    // "Acme Car is a trading name of Acme Insurance Limited": the legal name after the cue is the carrier.
    insurer: [/\b(?:insurer|insurers|insurance company|underwritten by|insured by|underwriter|on behalf of|trading (?:name|style) of)\b/],
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
  departmentWords: ['department', 'dept', 'team', 'customer services', 'customer service', 'claims department', 'underwriting department'],
  personTitles: ['mr', 'mrs', 'ms', 'miss', 'dr', 'sir'],
  legalForms: ['ltd', 'limited', 'plc', 'llp', 'lp', 'inc', 'incorporated', 'corp', 'co', 'company', 'dac', 'public limited company', 'designated activity company'],
  genericNameWords: ['insurance', 'insurer', 'assurance', 'direct', 'general', 'mutual', 'europe', 'uk', 'international', 'global', 'group', 'motor', 'auto', 'health', 'healthcare', 'medical', 'life', 'travel', 'underwriting'],
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
    // Level words UK private medical insurers name their plans with (Bupa, AXA Health, Aviva, Vitality, WPA, Freedom).
    healthPlanWords: [
      'comprehensive', 'core', 'essentials?', 'standard', 'premier', 'premium', 'plus', 'classic', 'select', 'elite', 'complete',
      'advanced', 'enhanced', 'extra', 'foundation', 'gold', 'silver', 'bronze', 'platinum', 'guided option', 'treatment and care',
    ],
  },
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
    outcomes: { pass: 'passed', fail: 'failed', warn: 'warning', unavailable: 'unavailable', skipped: 'skipped', not_available: 'no source configured', not_checked: 'not checked', unknown: 'unknown' },
    flagsLabel: 'Warnings',
    flags: {
      expired: 'expired', not_yet_active: 'not yet active', cancelled: 'cancelled', suspended: 'suspended', sanctioned: 'insurer sanctioned',
      insurer_not_authorised: 'insurer not authorised', provider_mismatch: 'provider does not match', provider_not_found: 'provider not found',
      type_mismatch: 'insurance type does not match', registry_unavailable: 'registry unavailable', no_registry_coverage: 'no registry covers this',
      demo_data: 'demo data', document_mismatch: 'document does not match', sandbox: 'sandbox key (demo data only)',
      provider_is_intermediary: 'provider is a broker, not an insurer', sanctions_not_checked: 'sanctions not checked',
    },
    confidence: 'Confidence',
  },
} as const satisfies LanguagePack;
