/** Generates the extraction test corpus (test/fixtures/policies/NNN.pdf + NNN.json) deterministically from a seeded PRNG. */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage, type Canvas } from '@napi-rs/canvas';
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { EXTRACT_LIMIT_DEFAULTS } from '../connector/src/config.js';
import { openPdf } from '../connector/src/extract/reading/open-pdf.js';
import { renderPage } from '../connector/src/extract/reading/render.js';
import { COUNTRIES, INSURANCE_TYPES, type TCountry, type TInsuranceType, type TLanguage } from '../shared/packs/index.js';
import { MOTOR_COVER_LEVELS, TRAVEL_REGIONS, type TMotorCoverLevel, type TTravelRegion, type TTripType } from '../shared/coverage-terms.js';
import { fax, photo, type Grey } from './scan-effects.js';
import * as R from './random.js';

// The generator's tables are Records over the packs' codes: a new country, type or language is a gap the compiler names here too.
type Country = TCountry;
type Kind = TInsuranceType;
type Lang = TLanguage;
type Layout = 'certificate' | 'schedule' | 'letter' | 'table';

const OUT_DIR = fileURLToPath(new URL('../test/fixtures/policies/', import.meta.url));
const COUNT = 66;
const SEED = 20260301;

// One stream for the whole corpus (reset per part), so the helpers below draw from whichever is current.
let rand = R.prng(SEED);
const int = (lo: number, hi: number): number => R.int(rand, lo, hi);
const pick = <T>(xs: readonly T[]): T => R.pick(rand, xs);
const digits = (n: number): string => R.digits(rand, n);
const letters = (n: number, alphabet?: string): string => R.letters(rand, n, alphabet);

// ---- Insurers: [as printed on the document, register canonical name] -------------------------

const INSURERS: Record<Country, Array<[string, string, Kind[]]>> = {
  UK: [
    ['Albion Demo Motor Insurance Limited', 'Albion Demo Motor Insurance Limited', ['motor']],
    ['Albion Demo Car Cover', 'Albion Demo Motor Insurance Limited', ['motor']],
    ['Thamesbridge Demo Insurance plc', 'Thamesbridge Demo Insurance plc', ['motor', 'travel', 'health']],
    ['Pennine Demo Travel Insurance Ltd', 'Pennine Demo Travel Insurance Ltd', ['travel']],
    ['Harbourside Demo Health Assurance Limited', 'Harbourside Demo Health Assurance Limited', ['health']],
    ['Kestrel Demo General Insurance Limited', 'Kestrel Demo General Insurance Limited', ['motor', 'travel']],
    ['Northgate Demo Mutual Insurance Society Limited', 'Northgate Demo Mutual Insurance Society Limited', ['health', 'motor']],
    ['Greyfriars Demo Underwriting Limited', 'Greyfriars Demo Underwriting Limited', ['travel', 'motor']],
    ['Seaview Demo Insurance Company Limited', 'Seaview Demo Insurance Company Limited', ['motor', 'travel', 'health']],
  ],
  DE: [
    ['HUK-COBURG-Allgemeine Versicherung AG', 'HUK-COBURG-Allgemeine Versicherung AG', ['motor', 'travel']],
    ['HDI Global SE', 'HDI Global SE', ['motor', 'travel']],
    ['AXA Versicherung AG', 'AXA Versicherung AG', ['motor', 'travel', 'health']],
    ['Debeka Allgemeine Versicherung AG', 'Debeka Allgemeine Versicherung AG', ['health', 'motor']],
    ['R+V Allgemeine Versicherung AG', 'R+V Allgemeine Versicherung AG', ['motor', 'travel']],
    ['Allianz Direct Versicherungs-AG', 'Allianz Direct Versicherungs-AG', ['motor']],
    [
      'Gothaer Allgemeine Versicherung Aktiengesellschaft',
      'Gothaer Allgemeine Versicherung Aktiengesellschaft',
      ['motor', 'travel', 'health'],
    ],
    ['Generali Deutschland Versicherung AG', 'Generali Deutschland Versicherung AG', ['motor', 'travel', 'health']],
    ['Provinzial Versicherung AG', 'Provinzial Versicherung AG', ['motor', 'health']],
    ['HUK24 AG', 'HUK24 AG', ['motor']],
    [
      'LVM Landwirtschaftlicher Versicherungsverein Münster a.G.',
      'LVM Landwirtschaftlicher Versicherungsverein Münster a.G.',
      ['motor', 'travel'],
    ],
  ],
  FR: [
    ['AXA FRANCE I.A.R.D.', 'AXA FRANCE I.A.R.D.', ['motor', 'travel', 'health']],
    ['GMF ASSURANCES', 'GMF ASSURANCES', ['motor', 'health']],
    ['GENERALI IARD', 'GENERALI IARD', ['motor', 'travel', 'health']],
    ['MAIF', 'MAIF', ['motor', 'travel', 'health']],
    ['MATMUT ASSURANCES', 'MATMUT ASSURANCES', ['motor', 'health']],
    ['MAAF ASSURANCES SA', 'MAAF ASSURANCES SA', ['motor', 'travel']],
    ['ALLIANZ IARD', 'ALLIANZ IARD', ['motor', 'travel', 'health']],
    ['PACIFICA', 'PACIFICA', ['motor']],
    ['THELEM ASSURANCES', 'THELEM ASSURANCES', ['motor', 'health']],
    ['MMA IARD', 'MMA IARD', ['motor', 'travel']],
  ],
};

// ---- Values in their local forms ---------------------------------------------------------------

function policyNumber(country: Country, type: Kind): string {
  const forms: Record<Country, Record<Kind, Array<() => string>>> = {
    UK: {
      motor: [() => `${letters(3)}${digits(8)}`, () => `PN-${digits(4)}-${digits(6)}`, () => `UKM ${digits(4)} ${digits(4)} ${digits(2)}`],
      travel: [() => `PTR-${digits(6)}`, () => `TRV${digits(7)}`, () => `${letters(2)} ${digits(3)} ${digits(4)}`],
      health: [() => `HDH ${digits(3)} ${digits(3)} ${digits(2)}`, () => `M${digits(8)}`, () => `${digits(4)}-${digits(4)}`],
    },
    DE: {
      motor: [
        () => `KH-${digits(4)}-${digits(6)}`,
        () => `${digits(2)}.${digits(3)}.${digits(3)}-${digits(1)}`,
        () => `AS ${digits(3)} ${digits(6)}`,
      ],
      travel: [() => `RV-${digits(4)}-${digits(7)}`, () => `${digits(3)} ${digits(3)} ${digits(3)}`, () => `RS${digits(9)}`],
      health: [() => `KV ${digits(7)}-${digits(2)}`, () => `${digits(10)}`, () => `KR-${digits(3)}.${digits(3)}.${digits(3)}`],
    },
    FR: {
      motor: [() => `AU ${digits(4)} ${digits(7)}`, () => `${digits(2)} ${digits(4)} ${digits(4)}`, () => `PO-${digits(6)}-${digits(2)}`],
      travel: [() => `VOY${digits(4)}-${digits(6)}`, () => `${digits(9)}`, () => `AV-${digits(3)}-${digits(5)}`],
      health: [() => `ADH-${digits(8)}`, () => `${digits(3)} ${digits(3)} ${digits(3)} ${digits(2)}`, () => `MS${digits(7)}`],
    },
  };
  return pick(forms[country][type])();
}

const DE_DISTRICTS = ['M', 'HH', 'B', 'K', 'F', 'S', 'KA', 'HD', 'DO', 'BN', 'WI', 'MZ', 'N', 'DD', 'L', 'HB', 'KI', 'MS', 'OS', 'RE'];
/** Returns [as printed, canonical]. */
function plate(country: Country): [string, string] {
  if (country === 'UK') {
    const v = `${letters(2, 'ABCDEFGHKLMNOPRSVWY')}${pick(['21', '71', '22', '72', '23', '73', '24', '74', '19', '69'])} ${letters(3, 'ABCDEFGHJKLMNOPRSTUVWXYZ')}`;
    return [v, v];
  }
  if (country === 'DE') {
    const d = pick(DE_DISTRICTS);
    const l = letters(int(1, 2), 'ABCDEFGHJKLMNPRSTUVWXYZ');
    const n = String(int(1, 9999));
    const canonical = `${d}-${l} ${n}`;
    return [rand() < 0.5 ? canonical : `${d} ${l} ${n}`, canonical];
  }
  const v = `${letters(2, 'ABCDEFGHJKLMNPRSTVXYZ')}-${digits(3).replace(/^0/, '1')}-${letters(2, 'ABCDEFGHJKLMNPRSTVXYZ')}`;
  return [v, v];
}

const MONTHS: Record<Lang, string[]> = {
  en: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  de: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
  fr: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
};
const pad = (n: number): string => String(n).padStart(2, '0');
const iso = (d: Date): string => d.toISOString().slice(0, 10);
const ordinal = (n: number): string =>
  n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th';

/** One date style per document, so a document reads consistently, as real ones do. */
function dateStyle(lang: Lang): (d: Date) => string {
  const D = (d: Date): [number, number, number] => [d.getUTCDate(), d.getUTCMonth(), d.getUTCFullYear()];
  const styles: Record<Lang, Array<(d: Date) => string>> = {
    en: [
      (d) => {
        const [dd, m, y] = D(d);
        return `${pad(dd)}/${pad(m + 1)}/${y}`;
      },
      (d) => {
        const [dd, m, y] = D(d);
        return `${dd} ${MONTHS.en[m]} ${y}`;
      },
      (d) => {
        const [dd, m, y] = D(d);
        return `${dd}${ordinal(dd)} ${MONTHS.en[m]} ${y}`;
      },
      (d) => {
        const [dd, m, y] = D(d);
        return `${dd} ${(MONTHS.en[m] as string).slice(0, 3)} ${y}`;
      },
      (d) => iso(d),
    ],
    de: [
      (d) => {
        const [dd, m, y] = D(d);
        return `${pad(dd)}.${pad(m + 1)}.${y}`;
      },
      (d) => {
        const [dd, m, y] = D(d);
        return `${dd}. ${MONTHS.de[m]} ${y}`;
      },
      (d) => {
        const [dd, m, y] = D(d);
        return `${dd}. ${(MONTHS.de[m] as string).replace('ä', 'ae')} ${y}`;
      },
      (d) => {
        const [dd, m, y] = D(d);
        return `${pad(dd)}.${pad(m + 1)}.${String(y).slice(2)}`;
      },
      (d) => iso(d),
    ],
    fr: [
      (d) => {
        const [dd, m, y] = D(d);
        return `${pad(dd)}/${pad(m + 1)}/${y}`;
      },
      (d) => {
        const [dd, m, y] = D(d);
        return `${dd === 1 ? '1er' : dd} ${MONTHS.fr[m]} ${y}`;
      },
      (d) => {
        const [dd, m, y] = D(d);
        return `${pad(dd)}.${pad(m + 1)}.${y}`;
      },
      (d) => iso(d),
    ],
  };
  return pick(styles[lang]);
}

// ---- Wording ----------------------------------------------------------------------------------

const LABELS: Record<
  Lang,
  {
    policy: string[];
    insurer: string[];
    start: string[];
    end: string[];
    period: string[];
    reg: string[];
    customer: string[];
    issued: string[];
    born: string[];
    premium: string[];
  }
> = {
  en: {
    policy: ['Policy number', 'Policy No.', 'Certificate number', 'Policy reference'],
    insurer: ['Insurer', 'Insurance company', 'Underwritten by'],
    start: ['Start date', 'Effective date', 'Cover starts', 'Date of commencement'],
    end: ['End date', 'Expiry date', 'Cover ends', 'Date of expiry'],
    period: ['Period of cover', 'Period of insurance'],
    reg: ['Registration', 'Vehicle registration', 'Registration mark', 'Reg. No.'],
    customer: ['Customer number', 'Client ID', 'Account number'],
    issued: ['Date of issue', 'Issued on'],
    born: ['Date of birth'],
    premium: ['Annual premium', 'Total premium'],
  },
  de: {
    policy: ['Versicherungsschein-Nr.', 'Versicherungsnummer', 'Vertragsnummer', 'Versicherungsschein-Nummer'],
    insurer: ['Versicherer', 'Ihr Versicherer'],
    start: ['Versicherungsbeginn', 'Beginn', 'Vertragsbeginn', 'Gültig ab'],
    end: ['Versicherungsende', 'Ablauf', 'Vertragsende', 'Gültig bis'],
    period: ['Versicherungsdauer', 'Laufzeit'],
    reg: ['amtliches Kennzeichen', 'Kennzeichen', 'Kfz-Kennzeichen'],
    customer: ['Kundennummer', 'Kunden-Nr.', 'Partnernummer'],
    issued: ['Ausstellungsdatum', 'Datum'],
    born: ['Geburtsdatum', 'geboren am'],
    premium: ['Jahresbeitrag', 'Beitrag'],
  },
  fr: {
    policy: ['Numéro de police', 'N° de contrat', "Numéro d'adhérent", 'N° de police', 'Contrat n°'],
    insurer: ['Assureur', 'Compagnie'],
    start: ["Date d'effet", 'Date de début', 'Prise d’effet'],
    end: ["Date d'échéance", 'Date de fin', "Date d'expiration"],
    period: ['Période de validité', 'Période de garantie'],
    reg: ['Immatriculation', "N° d'immatriculation"],
    customer: ['N° client', 'Référence client', 'Identifiant'],
    issued: ['Fait le', "Date d'émission"],
    born: ['Date de naissance', 'Né(e) le'],
    premium: ['Cotisation annuelle', 'Prime TTC'],
  },
};

const TITLES: Record<Lang, Record<Kind, string[]>> = {
  en: {
    motor: ['Certificate of Motor Insurance', 'Motor Insurance Schedule', 'Your Car Insurance'],
    travel: ['Travel Insurance Certificate', 'Travel Insurance Schedule', 'Your Travel Cover'],
    health: ['Private Health Insurance Certificate', 'Health Insurance Membership', 'Your Health Cover'],
  },
  de: {
    motor: ['Versicherungsschein Kfz-Versicherung', 'Kraftfahrtversicherung - Nachtrag', 'Ihre Autoversicherung'],
    travel: [
      'Reiseversicherung - Versicherungsbestätigung',
      'Versicherungsschein Auslandsreise-Krankenversicherung',
      'Ihre Reiserücktrittsversicherung',
    ],
    health: ['Versicherungsschein Krankenversicherung', 'Private Krankenzusatzversicherung', 'Ihre Krankenversicherung'],
  },
  fr: {
    motor: ["Attestation d'assurance automobile", 'Conditions particulières - Assurance auto', 'Votre contrat auto'],
    travel: ["Certificat d'assurance voyage", 'Assurance voyage - Conditions particulières', 'Votre assurance voyage'],
    health: ['Attestation de complémentaire santé', 'Mutuelle santé - Certificat d’adhésion', 'Votre contrat santé'],
  },
};

const HOLDERS: Record<Lang, string[]> = {
  en: ['Ms Olivia Clarke', 'Mr James Whitfield', 'Dr Priya Natarajan', 'Mr Owen Price', 'Mrs Sarah Lewis'],
  de: ['Herr Jonas Müller', 'Frau Anna Weiß', 'Herr Lukas Schröder', 'Frau Marie Köhler', 'Herr Felix Bauer'],
  fr: ['M. Julien Lefèvre', 'Mme Camille Durand', 'M. Hugo Moreau', 'Mme Léa Girard', 'M. Thomas Rousseau'],
};
const ADDRESSES: Record<Country, string[]> = {
  UK: ['14 Meadow Lane, Leeds LS6 2AB', '3 Harbour Street, Bristol BS1 4QA', '27 Kings Road, Reading RG1 3DF'],
  DE: ['Hauptstraße 12, 80331 München', 'Lindenallee 5, 20095 Hamburg', 'Bahnhofstraße 48, 50667 Köln'],
  FR: ['12 rue des Lilas, 75011 Paris', '8 avenue Foch, 69006 Lyon', '3 place du Marché, 33000 Bordeaux'],
};
const VEHICLES = [
  'Volkswagen Golf 1.5 TSI',
  'Ford Focus 1.0 EcoBoost',
  'Renault Clio V',
  'Peugeot 208',
  'BMW 320d Touring',
  'Toyota Yaris Hybrid',
];

// ---- Coverage wording (ground truth: the normalised value, and the plan name as printed) -------

/**
 * Cover levels, trip types, areas and plans as such documents print them: a label and its value, and
 * for letters a sentence. UK schedules say "Comprehensive" or "Third Party, Fire and Theft"; a German
 * Versicherungsschein lists Kfz-Haftpflicht with Teil- or Vollkasko and its Selbstbeteiligung; a French
 * contract names its formule ("Tous risques", "Tiers étendu", "Au tiers"). Travel: single trip or annual
 * multi-trip, and the area (UK/Europe/worldwide excluding USA, Canada and the Caribbean/worldwide).
 */
const COVER_WORDING: Record<
  Lang,
  {
    motorLabel: string[];
    motor: Record<TMotorCoverLevel, string[]>;
    tripLabel: string[];
    trip: Record<TTripType, string[]>;
    regionLabel: string[];
    region: Record<TTravelRegion, string[]>;
    planLabel: string[];
    plans: string[];
    letter: { motor: (v: string) => string; travel: (trip: string, region: string) => string; health: (v: string) => string };
  }
> = {
  en: {
    motorLabel: ['Cover', 'Type of cover', 'Level of cover', 'Cover type'],
    motor: {
      comprehensive: ['Comprehensive', 'Comprehensive cover', 'COMPREHENSIVE'],
      third_party_fire_theft: ['Third Party, Fire and Theft', 'Third party, fire & theft', 'TPFT'],
      third_party: ['Third Party Only', 'Third party only'],
    },
    tripLabel: ['Type of policy', 'Policy type', 'Cover type'],
    trip: {
      single_trip: ['Single trip', 'Single Trip', 'Single-trip cover'],
      annual_multi_trip: ['Annual multi-trip', 'Annual Multi-Trip', 'Annual multi-trip (max. 31 days per trip)'],
    },
    regionLabel: ['Territorial limits', 'Area of travel', 'Area', 'Geographical area'],
    region: {
      domestic: ['UK only', 'United Kingdom only'],
      europe: ['Europe', 'Europe (including Channel Islands)', 'Area 2: Europe'],
      worldwide_excluding_usa: ['Worldwide excluding USA, Canada and the Caribbean', 'Worldwide excl. USA & Canada'],
      worldwide: ['Worldwide', 'Worldwide including USA, Canada and the Caribbean'],
    },
    planLabel: ['Plan', 'Your plan', 'Level of cover', 'Scheme'],
    plans: ['Treatment and Care', 'Essentials Plus', 'Comprehensive', 'Premier Gold', 'Mid-Range Plan'],
    letter: {
      motor: (v) => `Your level of cover is ${v}.`,
      travel: (trip, region) => `Your policy type is ${trip} and your area of travel is ${region}.`,
      health: (v) => `Your plan is ${v}.`,
    },
  },
  de: {
    motorLabel: ['Deckungsumfang', 'Versicherungsumfang', 'Deckung'],
    motor: {
      comprehensive: ['Kfz-Haftpflicht und Vollkasko (SB 300 €)', 'Vollkasko inkl. Teilkasko', 'Haftpflicht + Vollkasko'],
      third_party_fire_theft: ['Kfz-Haftpflicht und Teilkasko (SB 150 €)', 'Teilkasko', 'Haftpflicht + Teilkasko'],
      third_party: ['Kfz-Haftpflicht', 'nur Haftpflicht', 'Kfz-Haftpflicht (ohne Kasko)'],
    },
    tripLabel: ['Vertragsart', 'Versicherungsart'],
    trip: {
      single_trip: ['Einzelreise', 'Einzelreiseversicherung'],
      annual_multi_trip: ['Jahresreiseversicherung', 'Jahresvertrag (alle Reisen bis 56 Tage)', 'Jahrespolice'],
    },
    regionLabel: ['Geltungsbereich', 'Reisegebiet'],
    region: {
      domestic: ['nur Deutschland', 'Deutschland'],
      europe: ['Europa', 'Europa (inkl. Mittelmeeranrainerstaaten)'],
      worldwide_excluding_usa: ['weltweit ohne USA und Kanada', 'Welt ohne USA/Kanada'],
      worldwide: ['weltweit', 'weltweit inkl. USA und Kanada'],
    },
    planLabel: ['Tarif', 'Versicherter Tarif', 'Tarifstufe'],
    plans: ['Komfort Plus (KVS2)', 'ZahnPremium', 'Vollversicherung Top', 'Bonus 600', 'Ambulant Classic'],
    letter: {
      motor: (v) => `Versicherungsumfang: ${v}.`,
      travel: (trip, region) => `Vertragsart: ${trip}, Geltungsbereich: ${region}.`,
      health: (v) => `Versicherter Tarif: ${v}.`,
    },
  },
  fr: {
    motorLabel: ['Formule', 'Formule de garantie', 'Niveau de garantie'],
    motor: {
      comprehensive: ['Tous risques', 'Tous Risques', 'Formule tous risques'],
      third_party_fire_theft: ['Tiers + vol et incendie', 'Tiers étendu', 'Intermédiaire (tiers, vol, incendie, bris de glace)'],
      third_party: ['Au tiers', 'Tiers simple', 'Responsabilité civile seule'],
    },
    tripLabel: ['Type de contrat', 'Formule'],
    trip: {
      single_trip: ['Voyage unique', 'Temporaire (un seul voyage)'],
      annual_multi_trip: ['Annuelle multi-voyages', 'Contrat annuel multi-voyages'],
    },
    regionLabel: ['Zone', 'Zone géographique', 'Zone de couverture'],
    region: {
      domestic: ['France', 'France métropolitaine'],
      europe: ['Europe', 'Europe et pays méditerranéens'],
      worldwide_excluding_usa: ['Monde entier hors USA et Canada', 'Monde entier sauf États-Unis et Canada'],
      worldwide: ['Monde entier', 'Monde entier y compris USA et Canada'],
    },
    planLabel: ['Formule', 'Niveau de garantie', 'Option'],
    plans: ['Confort', 'Niveau 3', 'Essentielle', 'Sérénité Plus', 'Équilibre'],
    letter: {
      motor: (v) => `Vous avez choisi la formule ${v}.`,
      travel: (trip, region) => `Type de contrat : ${trip}. Zone : ${region}.`,
      health: (v) => `Votre formule : ${v}.`,
    },
  },
};

interface CoverTruth {
  motor_cover?: TMotorCoverLevel;
  trip_type?: TTripType;
  region?: TTravelRegion;
  health_plan?: string;
}
/** Printed coverage: [label, value] rows for forms, one sentence for letters. */
interface CoverPrinted {
  rows: Array<[string, string]>;
  sentence: string;
}

/**
 * A document's coverage, from its own PRNG (seeded by its index) so that adding it left every other
 * value of the corpus as it was. A travel policy of a few weeks is a single trip, of a year annual multi-trip.
 */
function buildCoverage(i: number, lang: Lang, type: Kind, startIso: string, endIso: string): { truth: CoverTruth; printed: CoverPrinted } {
  const r = R.prng(SEED + 7919 * (i + 1));
  const choose = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const w = COVER_WORDING[lang];
  if (type === 'motor') {
    const level = choose(MOTOR_COVER_LEVELS);
    const v = choose(w.motor[level]);
    return { truth: { motor_cover: level }, printed: { rows: [[choose(w.motorLabel), v]], sentence: w.letter.motor(v) } };
  }
  if (type === 'travel') {
    const days = (Date.parse(endIso) - Date.parse(startIso)) / 86_400_000 + 1;
    const trip: TTripType = days <= 100 ? 'single_trip' : 'annual_multi_trip';
    const region = choose(TRAVEL_REGIONS);
    const t = choose(w.trip[trip]);
    const g = choose(w.region[region]);
    return {
      truth: { trip_type: trip, region },
      printed: {
        rows: [
          [choose(w.tripLabel), t],
          [choose(w.regionLabel), g],
        ],
        sentence: w.letter.travel(t, g),
      },
    };
  }
  const plan = choose(w.plans);
  return { truth: { health_plan: plan }, printed: { rows: [[choose(w.planLabel), plan]], sentence: w.letter.health(plan) } };
}

// ---- Document model and layouts ---------------------------------------------------------------

interface Truth {
  policy_number: string;
  insurer: string;
  insurance_type: Kind;
  start_date: string;
  end_date: string;
  vehicle_registration?: string;
}
interface Spec {
  id: string;
  country: Country;
  language: Lang;
  type: Kind;
  layout: Layout;
  kind: 'text' | 'scanned';
  truth: Truth;
  printed: { insurer: string; policy: string; start: string; end: string; plate?: string };
  coverage: { truth: CoverTruth; printed: CoverPrinted };
}

/** A text run at an absolute x; a row of runs shares one baseline. */
type Row = { runs: Array<{ x: number; text: string; bold?: boolean; size?: number }>; gap?: number };

function buildSpec(i: number): Spec {
  const countries: Country[] = [...COUNTRIES];
  const kinds: Kind[] = [...INSURANCE_TYPES];
  const layouts: Layout[] = ['certificate', 'schedule', 'letter', 'table'];
  const country = countries[i % countries.length] as Country;
  const type = kinds[Math.floor(i / countries.length) % kinds.length] as Kind;
  // Cross-language documents: the last six are German and French insurers' documents written in English.
  const language: Lang = i >= COUNT - 6 && country !== 'UK' ? 'en' : country === 'UK' ? 'en' : country === 'DE' ? 'de' : 'fr';
  const layout = layouts[(i + Math.floor(i / 12)) % 4] as Layout;
  // Every (country, type) gets scanned in some block of nine: a third overall.
  const kind = (Math.floor(i / 3) + Math.floor(i / 9)) % 3 === i % 3 ? 'scanned' : 'text';
  const candidates = INSURERS[country].filter(([, , ks]) => ks.includes(type));
  const [insurerPrinted, insurerCanonical] = pick(candidates);
  const policy = policyNumber(country, type);
  const startDay = pick([1, 1, 1, int(2, 28)]);
  const start = new Date(Date.UTC(int(2025, 2026), int(0, 11), startDay));
  let end: Date;
  if (type === 'travel' && rand() < 0.6) end = new Date(start.getTime() + int(6, 27) * 86_400_000);
  else end = new Date(Date.UTC(start.getUTCFullYear() + 1, start.getUTCMonth(), start.getUTCDate() - 1));
  const fmt = dateStyle(language === 'en' && country === 'DE' && rand() < 0.5 ? 'de' : language);
  const truth: Truth = {
    policy_number: policy,
    insurer: insurerCanonical,
    insurance_type: type,
    start_date: iso(start),
    end_date: iso(end),
  };
  const printed: Spec['printed'] = { insurer: insurerPrinted, policy, start: fmt(start), end: fmt(end) };
  if (type === 'motor') {
    const [p, canonical] = plate(country);
    truth.vehicle_registration = canonical;
    printed.plate = p;
  }
  const coverage = buildCoverage(i, language, type, truth.start_date, truth.end_date);
  return { id: String(i + 1).padStart(3, '0'), country, language, type, layout, kind, truth, printed, coverage };
}

function compose(spec: Spec): Row[] {
  const L = LABELS[spec.language];
  const p = spec.printed;
  const lang = spec.language;
  const fmt = dateStyle(lang);
  const issued = fmt(new Date(Date.UTC(2025, int(0, 11), int(1, 28))));
  const born = fmt(new Date(Date.UTC(int(1950, 2000), int(0, 11), int(1, 28))));
  const holder = pick(HOLDERS[lang]);
  const address = pick(ADDRESSES[spec.country]);
  const customer = `${digits(3)} ${digits(5)}`;
  const premium = lang === 'en' && spec.country === 'UK' ? `£${int(180, 990)}.${digits(2)}` : `${int(180, 990)},${digits(2)} €`;
  const title = pick(TITLES[lang][spec.type]);
  const row = (...runs: Row['runs']): Row => ({ runs });
  const text = (t: string, x = 60): Row => row({ x, text: t });
  const rows: Row[] = [];

  // Letterhead: the insurer's name, sometimes with its address on the same line after a separator.
  const office = {
    UK: 'Registered in England No. 0' + digits(7),
    DE: `Amtsgericht ${pick(['Coburg', 'Hannover', 'Köln'])} HRB ${digits(4)}`,
    FR: `RCS Paris B ${digits(3)} ${digits(3)} ${digits(3)}`,
  }[spec.country];
  rows.push(row({ x: 60, text: p.insurer, bold: true, size: 15 }));
  rows.push(
    text(
      pick(ADDRESSES[spec.country]).replace(/^[^,]*, /, '') +
        ' · ' +
        (lang === 'de' ? 'Tel. ' : lang === 'fr' ? 'Tél. ' : 'Tel. ') +
        `0${digits(3)} ${digits(6)}`,
    ),
  );
  rows.push({ runs: [], gap: 18 });
  rows.push(row({ x: 60, text: title, bold: true, size: 13 }));
  rows.push({ runs: [], gap: 10 });

  const insurerLabelled = rand() < 0.7;
  const fields: Array<[string, string]> = [[pick(L.policy), p.policy]];
  if (insurerLabelled) fields.push([pick(L.insurer), p.insurer]);
  const usePeriod = rand() < 0.35;
  if (usePeriod) {
    const [from, to] = lang === 'de' ? ['vom ', ' bis '] : lang === 'fr' ? ['du ', ' au '] : ['from ', ' to '];
    fields.push([pick(L.period), rand() < 0.5 ? `${from}${p.start}${to}${p.end}` : `${p.start} - ${p.end}`]);
  } else {
    fields.push([pick(L.start), p.start], [pick(L.end), p.end]);
  }
  if (p.plate) fields.push([pick(L.reg), p.plate]);
  const extras: Array<[string, string]> = [
    [lang === 'de' ? 'Versicherungsnehmer' : lang === 'fr' ? 'Souscripteur' : 'Policyholder', holder],
    [pick(L.born), born],
    [pick(L.customer), customer],
  ];
  if (spec.type === 'motor') extras.push([lang === 'de' ? 'Fahrzeug' : lang === 'fr' ? 'Véhicule' : 'Vehicle', pick(VEHICLES)]);
  extras.push(...spec.coverage.printed.rows);
  extras.push([pick(L.premium), premium]);

  switch (spec.layout) {
    case 'certificate': {
      for (const [k, v] of [...extras.slice(0, 1), ...fields, ...extras.slice(1)]) rows.push(text(`${k}: ${v}`));
      break;
    }
    case 'schedule': {
      for (const [k, v] of [...fields, ...extras]) rows.push(row({ x: 60, text: k }, { x: 250, text: v }));
      break;
    }
    case 'table': {
      rows.push(text(`${extras[0]?.[0]}: ${holder}`));
      rows.push(text(address));
      rows.push({ runs: [], gap: 8 });
      // Insurer names are too long for a table cell; tables print it as a line of its own.
      const cells = fields.filter(([, v]) => v !== p.insurer);
      if (insurerLabelled) rows.push(text(`${L.insurer[0]}: ${p.insurer}`));
      rows.push({ runs: [], gap: 6 });
      for (let c = 0; c < cells.length; c += 2) {
        const chunk = cells.slice(c, c + 2);
        rows.push(row(...chunk.map(([k], j) => ({ x: 60 + j * 260, text: k, bold: true }))));
        rows.push(row(...chunk.map(([, v], j) => ({ x: 60 + j * 260, text: v }))));
        rows.push({ runs: [], gap: 6 });
      }
      for (const [k, v] of extras.slice(1)) rows.push(text(`${k}: ${v}`));
      break;
    }
    case 'letter': {
      rows.push(text(holder));
      rows.push(text(address));
      rows.push({ runs: [], gap: 10 });
      rows.push(text(`${lang === 'de' ? 'Datum' : lang === 'fr' ? 'Le' : 'Date'}: ${issued}`, 380));
      rows.push({ runs: [], gap: 6 });
      const name = holder.split(' ').slice(-1)[0];
      const sentences: Record<Lang, string[]> = {
        en: [
          `Dear ${holder.split(' ')[0]} ${name},`,
          `thank you for choosing us. Your ${pick(L.policy).toLowerCase()} is ${p.policy}.`,
          `Your cover runs from ${p.start} to ${p.end}.`,
          ...(p.plate ? [`It applies to the vehicle with registration ${p.plate}.`] : []),
          ...(insurerLabelled ? [`This policy is underwritten by ${p.insurer}.`] : []),
          spec.coverage.printed.sentence,
          `Please keep this letter with your documents. Your customer number is ${customer}.`,
          'Yours sincerely,',
          'Customer Services',
        ],
        de: [
          `Sehr geehrte${holder.startsWith('Frau') ? ' Frau' : 'r Herr'} ${name},`,
          `vielen Dank für Ihr Vertrauen. Ihre ${pick(['Versicherungsnummer', 'Vertragsnummer'])} lautet ${p.policy}.`,
          `Der Versicherungsschutz besteht vom ${p.start} bis ${p.end}.`,
          ...(p.plate ? [`Er gilt für das Fahrzeug mit dem amtlichen Kennzeichen ${p.plate}.`] : []),
          ...(insurerLabelled ? [`Ihr Versicherer ist die ${p.insurer}.`] : []),
          spec.coverage.printed.sentence,
          `Bitte geben Sie bei Rückfragen Ihre Kundennummer ${customer} an.`,
          'Mit freundlichen Grüßen',
          'Ihr Kundenservice',
        ],
        fr: [
          `${holder.startsWith('Mme') ? 'Madame' : 'Monsieur'} ${name},`,
          `nous vous remercions de votre confiance. Votre contrat n° ${p.policy} est bien enregistré.`,
          `Vos garanties sont valables du ${p.start} au ${p.end}.`,
          ...(p.plate ? [`Elles couvrent le véhicule immatriculé ${p.plate}.`] : []),
          ...(insurerLabelled ? [`Votre assureur : ${p.insurer}.`] : []),
          spec.coverage.printed.sentence,
          `Votre référence client est ${customer}.`,
          'Veuillez agréer nos salutations distinguées.',
          'Le service clients',
        ],
      };
      for (const s of sentences[lang]) rows.push(text(s));
      break;
    }
  }
  rows.push({ runs: [], gap: 14 });
  if (spec.layout !== 'letter') rows.push(text(`${pick(L.issued)}: ${issued}`));
  rows.push({ runs: [], gap: 24 });
  rows.push(row({ x: 60, text: `${p.insurer} · ${office}`, size: 8 }));
  return rows;
}

// ---- Families shaped like real forms (documents 067 onwards) -----------------------------------
//
// Each family below follows a public description of a real kind of document, not any insurer's layout
// and not the outside documents (../shared/data/documents). They bring what the first 66 documents
// never show: a brand in the letterhead with the carrier's legal name only in the signature or the
// footer beside its register notes, a department signing for the insurer, periods broken across lines,
// bilingual German/English certificates, and one more kind of document per country. They draw from a
// stream of their own (FAMILY_SEED), so the first 66 documents stay byte-identical.

type Family = 'uk_motor_renewal' | 'uk_travel_schedule' | 'de_kfz_evb' | 'de_bilingual_cert' | 'fr_attestation' | 'fr_avis_echeance';
const FAMILY_SEED = 20261124;
const PER_FAMILY = 8;

/** [brand as the letterhead prints it, legal name of the carrier, types, registered seat]. The legal name is the ground truth. */
const BRANDED: Record<Country, Array<[string, string, Kind[], string]>> = {
  UK: [
    ['Kestrel Demo', 'Kestrel Demo General Insurance Limited', ['motor', 'travel'], 'Kestrel House, 2 Mill Road, Norwich NR1 3QP'],
    ['Seaview Demo', 'Seaview Demo Insurance Company Limited', ['motor', 'travel', 'health'], '40 Esplanade, Brighton BN2 1TW'],
    ['Northgate Demo', 'Northgate Demo Mutual Insurance Society Limited', ['motor', 'health'], 'Northgate, Chester CH1 2HT'],
    ['Pennine Demo Travel', 'Pennine Demo Travel Insurance Ltd', ['travel'], '9 Wool Exchange, Bradford BD1 1LA'],
  ],
  DE: [
    ['Gothaer', 'Gothaer Allgemeine Versicherung AG', ['motor', 'travel', 'health'], 'Köln'],
    ['Debeka', 'Debeka Allgemeine Versicherung AG', ['motor', 'health'], 'Koblenz'],
    ['Provinzial', 'Provinzial Versicherung AG', ['motor', 'health'], 'Münster'],
    ['Generali', 'Generali Deutschland Versicherung AG', ['motor', 'travel', 'health'], 'München'],
    ['ADAC', 'ADAC Autoversicherung AG', ['motor'], 'München'],
  ],
  FR: [
    ['MAAF', 'MAAF ASSURANCES SA', ['motor', 'travel', 'health'], 'Chaban de Chauray, 79180 Chauray'],
    ['AXA', 'AXA France IARD SA', ['motor', 'travel', 'health'], '313 Terrasses de l’Arche, 92727 Nanterre'],
    ['Allianz', 'Allianz IARD SA', ['motor', 'travel', 'health'], '1 cours Michelet, 92800 Puteaux'],
    ['Generali', 'Generali IARD SA', ['motor', 'travel'], '2 rue Pillet-Will, 75009 Paris'],
  ],
};

interface FamilyDoc {
  spec: Spec;
  family: Family;
  rows: Row[];
}

/** A document of `family`, numbered `n` (1-based across the whole corpus), its `k`th of the family. */
function familyDoc(family: Family, n: number, k: number): FamilyDoc {
  const country: Country = family.startsWith('uk') ? 'UK' : family.startsWith('de') ? 'DE' : 'FR';
  const lang: Lang = country === 'UK' ? 'en' : country === 'DE' ? 'de' : 'fr';
  const typesOf: Record<Family, Kind[]> = {
    uk_motor_renewal: ['motor'],
    uk_travel_schedule: ['travel', 'travel', 'health'],
    de_kfz_evb: ['motor'],
    de_bilingual_cert: ['travel', 'health'],
    fr_attestation: ['travel', 'health', 'motor'],
    fr_avis_echeance: ['motor', 'health'],
  };
  const type = typesOf[family][k % typesOf[family].length] as Kind;
  // A third scanned, as in the first 66: the family's 2nd, 5th and 8th.
  const kind: Spec['kind'] = k % 3 === 1 ? 'scanned' : 'text';
  const [brand, legal, , seat] = pick(BRANDED[country].filter(([, , ks]) => ks.includes(type)));
  const policy = policyNumber(country, type);
  const start = new Date(Date.UTC(int(2025, 2026), int(0, 11), pick([1, 1, int(2, 28)])));
  const short = type === 'travel' && rand() < 0.6;
  const end = short
    ? new Date(start.getTime() + int(6, 27) * 86_400_000)
    : new Date(Date.UTC(start.getUTCFullYear() + 1, start.getUTCMonth(), start.getUTCDate() - 1));
  const fmt = dateStyle(lang);
  const truth: Truth = { policy_number: policy, insurer: legal, insurance_type: type, start_date: iso(start), end_date: iso(end) };
  const printed: Spec['printed'] = { insurer: legal, policy, start: fmt(start), end: fmt(end) };
  if (type === 'motor') {
    const [p, canonical] = plate(country);
    truth.vehicle_registration = canonical;
    printed.plate = p;
  }
  const coverage = buildCoverage(n - 1, lang, type, truth.start_date, truth.end_date);
  const spec: Spec = {
    id: String(n).padStart(3, '0'),
    country,
    language: lang,
    type,
    layout: 'certificate',
    kind,
    truth,
    printed,
    coverage,
  };
  const ctx: FamilyContext = { spec, brand, legal, seat, fmt, holder: pick(HOLDERS[lang]), address: pick(ADDRESSES[country]) };
  const rows = FAMILY_LAYOUTS[family](ctx);
  return { spec, family, rows };
}

interface FamilyContext {
  spec: Spec;
  brand: string;
  legal: string;
  seat: string;
  fmt: (d: Date) => string;
  holder: string;
  address: string;
}

const run = (x: number, t: string, o: { bold?: boolean; size?: number } = {}): Row['runs'][number] => ({ x, text: t, ...o });
const line = (t: string, x = 60, size?: number): Row => ({ runs: [run(x, t, size ? { size } : {})] });
const pair = (k: string, v: string, at = 250): Row => ({ runs: [run(60, k), run(at, v)] });
const gap = (g: number): Row => ({ runs: [], gap: g });
const small = (ts: string[]): Row[] => ts.map((t) => line(t, 60, 7.5));
const randomDate = (): Date => new Date(Date.UTC(2025, int(0, 11), int(1, 28)));

/** The letterhead: the brand alone, big, with a service address and phone line. */
function letterhead(c: FamilyContext, tagline: string): Row[] {
  return [{ runs: [run(60, c.brand, { bold: true, size: 18 }), run(380, tagline, { size: 8 })] }, gap(20)];
}

const FAMILY_LAYOUTS: Record<Family, (c: FamilyContext) => Row[]> = {
  /**
   * UK motor renewal notice with its schedule. Source: FCA Handbook ICOBS 6A.2 (renewal disclosures: the
   * new premium beside last year's, introduced by PS21/5, General insurance pricing practices), and the
   * usual schedule wording "Period of insurance: from 00:01 hours on ... to midnight on ..." of UK motor
   * policies. The brand is a trading name; the carrier's legal name is in the footer's regulatory notes.
   */
  uk_motor_renewal: (c) => {
    const p = c.spec.printed;
    const rows: Row[] = [...letterhead(c, `Customer Services 0${digits(3)} ${digits(3)} ${digits(4)}`)];
    rows.push(line(c.holder), line(c.address), gap(10), line(`Date: ${c.fmt(randomDate())}`, 380));
    rows.push(
      {
        runs: [
          run(60, pick(['Your car insurance renewal', 'Motor Insurance Renewal Schedule', 'Your renewal notice and schedule']), {
            bold: true,
            size: 13,
          }),
        ],
      },
      gap(8),
    );
    rows.push(pair('Policy number', p.policy), pair('Quote reference', `Q${digits(9)}`));
    rows.push(pair('Period of insurance', `00:01 hours on ${p.start}`), pair('', `to midnight on ${p.end}`));
    rows.push(pair(pick(['Vehicle registration', 'Registration mark', 'Registration']), p.plate!), pair('Vehicle', pick(VEHICLES)));
    for (const [k, v] of c.spec.coverage.printed.rows) rows.push(pair(k, v));
    rows.push(
      pair('Your premium this year', `£${int(300, 990)}.${digits(2)}`),
      pair("Last year's premium", `£${int(300, 990)}.${digits(2)}`),
      gap(10),
    );
    rows.push(line('If you do nothing, your policy will renew automatically on the date shown above.'), gap(10));
    rows.push(line('Yours sincerely,'), line(pick(['Customer Services Team', 'The Renewals Team', 'Customer Service Department'])));
    if (rand() < 0.4) rows.push(line(`for and on behalf of ${c.legal}`));
    rows.push(gap(24));
    const reg = `Registered in England and Wales No. ${digits(8)}`;
    rows.push(
      ...small([
        `${c.brand} is a trading name of ${c.legal}. Registered office: ${c.seat}.`,
        `${reg}. Authorised by the Prudential Regulation Authority and regulated by the Financial Conduct`,
        `Authority and the Prudential Regulation Authority (Firm Reference Number ${digits(6)}).`,
      ]),
    );
    return rows;
  },
  /**
   * UK travel (and health) policy schedule. Source: the Insurance Product Information Document's headings
   * (Commission Implementing Regulation (EU) 2017/1469, kept in UK law: "When and how long does the cover
   * last?") and typical schedules that print the period on two lines, "From ..." / "To ... (both dates
   * inclusive)". Signed by a team; the legal name is given once, in "underwritten by" in the footer.
   */
  uk_travel_schedule: (c) => {
    const p = c.spec.printed;
    const health = c.spec.type === 'health';
    const rows: Row[] = [...letterhead(c, health ? 'Health cover' : 'Travel insurance')];
    rows.push({ runs: [run(60, health ? 'Your Membership Schedule' : 'Your Policy Schedule', { bold: true, size: 13 })] }, gap(8));
    rows.push(pair(health ? 'Membership number' : 'Policy number', p.policy), pair('Lead insured', c.holder), pair('Address', c.address));
    rows.push(pair('Date of birth', c.fmt(new Date(Date.UTC(int(1950, 2000), int(0, 11), int(1, 28))))));
    if (rand() < 0.5)
      rows.push(
        pair(health ? 'Period of cover' : 'Period of insurance', `From ${p.start}`),
        pair('', `To ${p.end} (both dates inclusive)`),
      );
    else
      rows.push(line(`${health ? 'Period of cover' : 'Period of insurance'}: from ${p.start}`), line(`to ${p.end}, both dates inclusive.`));
    for (const [k, v] of c.spec.coverage.printed.rows) rows.push(pair(k, v));
    rows.push(pair('Total premium (incl. IPT)', `£${int(20, 400)}.${digits(2)}`), gap(12));
    rows.push(line('Please read this schedule together with your policy wording and keep it safe.'), gap(8));
    rows.push(line('Kind regards,'), line(pick(['Customer Services Team', 'Claims Department', 'Customer Service Team'])), gap(24));
    rows.push(
      ...small([
        `${c.brand} policies are underwritten by ${c.legal}, registered office ${c.seat},`,
        `registered in England No. ${digits(8)}. Authorised and regulated by the Financial Conduct Authority.`,
      ]),
    );
    return rows;
  },
  /**
   * German Kfz-Versicherungsschein with its elektronische Versicherungsbestätigung (eVB). Source: § 23
   * Fahrzeug-Zulassungsverordnung (the eVB number, seven characters, that the registration office asks for)
   * and the Pflichtangaben of a Versicherungsschein (VVG § 3, VVG-InfoV § 1: name and seat of the insurer,
   * Registergericht and number). The letterhead is the brand; "Ihre Abteilung Kraftfahrt" signs.
   */
  de_kfz_evb: (c) => {
    const p = c.spec.printed;
    const rows: Row[] = [...letterhead(c, `Servicetelefon 0800 ${digits(3)} ${digits(4)}`)];
    rows.push(line(c.holder), line(c.address), gap(10), line(`Datum: ${c.fmt(randomDate())}`, 380));
    rows.push(
      {
        runs: [
          run(
            60,
            pick([
              'Versicherungsschein Kraftfahrtversicherung',
              'Ihre Kfz-Versicherung: Versicherungsbestätigung',
              'Nachtrag zum Versicherungsschein Kfz',
            ]),
            { bold: true, size: 13 },
          ),
        ],
      },
      gap(8),
    );
    rows.push(pair('Versicherungsschein-Nr.', p.policy), pair('eVB-Nummer', `${letters(2)}${letters(1)}${digits(4)}`));
    rows.push(pair('Amtl. Kennzeichen', p.plate!), pair('Fahrzeug', pick(VEHICLES)));
    for (const [k, v] of c.spec.coverage.printed.rows) rows.push(pair(k, v));
    rows.push(gap(6));
    if (rand() < 0.5) rows.push(line(`Der Versicherungsschutz besteht vom ${p.start}, 0:00 Uhr,`), line(`bis zum ${p.end}, 24:00 Uhr.`));
    else rows.push(pair('Beginn', `${p.start}, 0:00 Uhr`), pair('Ablauf', `${p.end}, 24:00 Uhr`));
    rows.push(pair('Jahresbeitrag', `${int(300, 990)},${digits(2)} €`), gap(12));
    rows.push(line('Mit freundlichen Grüßen'));
    if (rand() < 0.4) rows.push(line(c.legal));
    rows.push(line(pick(['Ihre Abteilung Kraftfahrt', 'Abteilung Kraftfahrtversicherung', 'Ihr Kundenservice Kfz-Versicherung'])), gap(24));
    rows.push(
      ...small([
        `${c.legal} · Sitz der Gesellschaft: ${c.seat} · Registergericht: Amtsgericht ${c.seat} HRB ${digits(5)}`,
        `Vorsitzender des Aufsichtsrats: Dr. Karl Brenner · Vorstand: Petra Hahn (Vorsitzende), Uwe Lorenz`,
      ]),
    );
    return rows;
  },
  /**
   * German/English certificate of travel or health insurance, as asked of visitors and students. Source:
   * Visa Code (Regulation (EC) No 810/2009) Art. 15 (travel medical insurance for the whole stay, valid in
   * every Schengen state, at least EUR 30,000) and § 2 Abs. 3 AufenthG (adequate health insurance cover),
   * for which insurers issue bilingual "Versicherungsbestätigung / Confirmation of insurance".
   */
  de_bilingual_cert: (c) => {
    const p = c.spec.printed;
    const rows: Row[] = [...letterhead(c, 'Versicherungsbestätigung / Confirmation of insurance')];
    rows.push(
      {
        runs: [
          run(
            60,
            pick([
              'Versicherungsbestätigung / Certificate of Insurance',
              'Bestätigung über den Versicherungsschutz / Confirmation of cover',
            ]),
            { bold: true, size: 13 },
          ),
        ],
      },
      gap(8),
    );
    const travel = c.spec.type === 'travel';
    const product = travel
      ? pick(['Reisekrankenversicherung / Travel medical insurance', 'Reiseversicherung / Travel insurance'])
      : pick(['Krankenversicherung / Health insurance', 'Private Krankenversicherung / Private health insurance']);
    rows.push(pair('Produkt / Product', product, 300));
    rows.push(
      pair('Versicherungsnummer / Policy number', p.policy, 300),
      pair('Versicherte Person / Insured person', c.holder.replace(/^(Herr|Frau) /, ''), 300),
    );
    rows.push(pair('Geburtsdatum / Date of birth', c.fmt(new Date(Date.UTC(int(1960, 2005), int(0, 11), int(1, 28)))), 300));
    rows.push(pair('Versicherungsbeginn / Start of cover', p.start, 300), pair('Versicherungsende / End of cover', p.end, 300));
    for (const [k, v] of c.spec.coverage.printed.rows) rows.push(pair(k, v, 300));
    rows.push(pair('Versicherungssumme / Sum insured', `${pick(['30.000', '50.000', '100.000'])} EUR`, 300), gap(10));
    rows.push(line(`Wir bestätigen, dass für die genannte Person Versicherungsschutz bei der ${c.brand} besteht.`));
    rows.push(line(`We confirm that the person named above is insured with ${c.brand}.`), gap(10));
    rows.push(
      line('Mit freundlichen Grüßen / Kind regards'),
      line(
        pick(
          travel
            ? [
                'Ihr Service-Team / Your service team',
                'Kundenservice Reiseversicherung',
                'Abteilung Reiseversicherung / Travel insurance department',
              ]
            : [
                'Ihr Service-Team / Your service team',
                'Kundenservice Krankenversicherung',
                'Abteilung Krankenversicherung / Health insurance department',
              ],
        ),
      ),
      gap(24),
    );
    rows.push(
      ...small([
        `${c.legal} · Sitz der Gesellschaft / Registered office: ${c.seat}`,
        `Registergericht / Register court: Amtsgericht ${c.seat} HRB ${digits(5)} · USt-IdNr. DE${digits(9)}`,
      ]),
    );
    return rows;
  },
  /**
   * French "attestation d'assurance" letter for travel, health or a car. Source: Code des assurances
   * art. L112-2 and R112-3 (information on the insurer: its name, legal form, seat, and the mention
   * "entreprise régie par le Code des assurances"), and the attestations insurers issue for a visa
   * ("attestation d'assurance voyage", same Visa Code art. 15) or an employer. The body names the brand;
   * "Pour l'assureur, le Service ..." signs; the legal name is in the footer.
   */
  fr_attestation: (c) => {
    const p = c.spec.printed;
    const what = { travel: "d'assurance voyage", health: 'de complémentaire santé', motor: "d'assurance automobile" }[c.spec.type];
    const rows: Row[] = [...letterhead(c, `Service clients : 09 ${digits(2)} ${digits(2)} ${digits(2)} ${digits(2)}`)];
    rows.push(line(c.holder, 330), line(c.address, 330), gap(10), line(`Le ${c.fmt(randomDate())}`, 330), gap(8));
    rows.push(
      {
        runs: [run(60, pick(["ATTESTATION D'ASSURANCE", "Attestation d'assurance", 'Attestation de garantie']), { bold: true, size: 13 })],
      },
      gap(8),
    );
    if (rand() < 0.5) {
      rows.push(line(`${c.brand} atteste que ${c.holder} est titulaire du contrat ${what}`));
      rows.push(line(`n° ${p.policy}${p.plate ? `, véhicule immatriculé ${p.plate},` : ''} pour la période du ${p.start}`));
    } else {
      rows.push(line(`${c.brand} atteste que ${c.holder} a souscrit le contrat n° ${p.policy}`));
      rows.push(
        line(
          `(assurance ${{ travel: 'voyage', health: 'santé', motor: 'automobile' }[c.spec.type]})${p.plate ? `, véhicule immatriculé ${p.plate},` : ''} pour la période du ${p.start}`,
        ),
      );
    }
    rows.push(line(`au ${p.end} inclus, sous réserve du paiement des cotisations.`));
    rows.push(line(c.spec.coverage.printed.sentence), gap(8));
    rows.push(line('La présente attestation est délivrée pour servir et valoir ce que de droit.'), gap(8));
    rows.push(
      line(
        pick([
          "Pour l'assureur, le Service Sinistres",
          "Pour l'assureur, le Service Assistance",
          "Pour l'assureur, le Service Clients",
          'Le Service Relation Clients',
        ]),
      ),
      gap(24),
    );
    rows.push(
      ...small([
        `${c.legal} - Société anonyme au capital de ${int(100, 900)} ${digits(3)} ${digits(3)} euros - RCS ${pick(['Nanterre', 'Niort', 'Paris'])} ${digits(3)} ${digits(3)} ${digits(3)}`,
        `Siège social : ${c.seat} - Entreprise régie par le Code des assurances`,
      ]),
    );
    return rows;
  },
  /**
   * French "avis d'échéance": the yearly premium notice for a car or health contract. Source: Code des
   * assurances art. L113-15-1 (loi Chatel: the notice states the deadline to give notice of non-renewal)
   * and art. L113-3 (the payment date), so it prints the new period, a payment date and a deadline.
   */
  fr_avis_echeance: (c) => {
    const p = c.spec.printed;
    const rows: Row[] = [...letterhead(c, `Espace client : www.${c.brand.toLowerCase()}.example`)];
    rows.push(line(c.holder, 330), line(c.address, 330), gap(10));
    rows.push({ runs: [run(60, "AVIS D'ÉCHÉANCE", { bold: true, size: 13 })] }, gap(8));
    rows.push(
      pair(
        'Contrat',
        c.spec.type === 'motor' ? pick(['Assurance automobile', 'Auto Formule']) : pick(['Complémentaire santé', 'Santé individuelle']),
      ),
    );
    rows.push(pair('N° de contrat', p.policy), pair('N° client', `${digits(3)} ${digits(5)}`));
    if (p.plate) rows.push(pair('Immatriculation', p.plate));
    for (const [k, v] of c.spec.coverage.printed.rows) rows.push(pair(k, v));
    rows.push(pair('Période', `du ${p.start}`), pair('', `au ${p.end}`));
    rows.push(pair('Cotisation TTC', `${int(300, 990)},${digits(2)} €`), pair('À régler avant le', c.fmt(randomDate())), gap(10));
    rows.push(line(`Vous pouvez résilier votre contrat jusqu'au ${c.fmt(randomDate())} (art. L113-15-1 du Code des assurances).`), gap(10));
    rows.push(
      line(pick(['Votre conseiller, le Service Gestion des contrats', "Pour l'assureur, le Service Clients", 'Le Service Cotisations'])),
      gap(24),
    );
    rows.push(
      ...small([
        `${c.brand} est une marque de ${c.legal}, entreprise régie par le Code des assurances.`,
        `Siège social : ${c.seat} - RCS ${digits(3)} ${digits(3)} ${digits(3)}`,
      ]),
    );
    return rows;
  },
};
const FAMILIES = Object.keys(FAMILY_LAYOUTS) as Family[];

async function textPdf(rows: Row[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  // Fixed metadata so two runs produce byte-identical files.
  doc.setCreationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setModificationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setProducer('covercheck make-corpus');
  doc.setCreator('covercheck make-corpus');
  const page: PDFPage = doc.addPage([595.28, 841.89]);
  const regular: PDFFont = await doc.embedFont(StandardFonts.Helvetica);
  const bold: PDFFont = await doc.embedFont(StandardFonts.HelveticaBold);
  let y = 780;
  for (const r of rows) {
    if (r.runs.length === 0) {
      y -= r.gap ?? 10;
      continue;
    }
    const size = Math.max(...r.runs.map((run) => run.size ?? 10.5));
    for (const run of r.runs)
      page.drawText(run.text, { x: run.x, y, size: run.size ?? 10.5, font: run.bold ? bold : regular, color: rgb(0.08, 0.08, 0.1) });
    y -= size * 1.55;
  }
  return doc.save({ useObjectStreams: false });
}

/** How a scan was made: the scanner's effect, and the quarter turns (clockwise) the sheet lay at on the glass. */
interface ScanStyle {
  effect: 'office' | 'photo' | 'fax';
  turn: 0 | 90 | 180 | 270;
}
/**
 * The first five scans stay office scans (the benchmark and the pipeline tests read 001-015); the
 * others cycle through phone photos, faxes and sheets turned on the glass, so the corpus has every
 * kind of scan the extractor is meant to read.
 */
const SCAN_CYCLE: ScanStyle[] = [
  { effect: 'photo', turn: 0 },
  { effect: 'fax', turn: 0 },
  { effect: 'office', turn: 90 },
  { effect: 'photo', turn: 0 },
  { effect: 'fax', turn: 180 },
  { effect: 'office', turn: 270 },
];
const scanStyle = (ordinal: number): ScanStyle =>
  ordinal < 5 ? { effect: 'office', turn: 0 } : (SCAN_CYCLE[(ordinal - 5) % SCAN_CYCLE.length] as ScanStyle);
const degradation = (s: ScanStyle): string => s.effect + (s.turn ? `+rot${s.turn}` : '');

/** Greyscale pixels of a canvas-drawable image. */
function greyOf(img: { width: number; height: number }): Grey {
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img as never, 0, 0);
  const px = ctx.getImageData(0, 0, img.width, img.height).data;
  const data = new Uint8Array(img.width * img.height);
  for (let i = 0; i < data.length; i++) data[i] = (px[4 * i]! * 77 + px[4 * i + 1]! * 150 + px[4 * i + 2]! * 29) >> 8;
  return { width: img.width, height: img.height, data };
}

/** A canvas holding greyscale pixels. */
function canvasOf(g: Grey): Canvas {
  const canvas = createCanvas(g.width, g.height);
  const ctx = canvas.getContext('2d');
  const out = ctx.createImageData(g.width, g.height);
  for (let i = 0; i < g.data.length; i++) {
    out.data[4 * i] = out.data[4 * i + 1] = out.data[4 * i + 2] = g.data[i]!;
    out.data[4 * i + 3] = 255;
  }
  ctx.putImageData(out, 0, 0);
  return canvas;
}

/** The text PDF with a fax machine's header line across its top, rendered at the fax's 200 dpi. */
async function faxPage(textBytes: Uint8Array, rand: () => number): Promise<Grey> {
  const doc = await PDFDocument.load(textBytes);
  const font = await doc.embedFont(StandardFonts.Courier);
  const page = doc.getPage(0);
  const d = (n: number): string => String(Math.floor(rand() * n)).padStart(2, '0');
  const header = `${d(28)}/${d(12)}/26 ${d(24)}:${d(60)}   +${d(50)} ${d(100)} ${d(100)}${d(100)}${d(100)}   P.001/001`;
  page.drawText(header, { x: 24, y: 841.89 - 16, size: 8, font });
  const src = await openPdf(await doc.save(), EXTRACT_LIMIT_DEFAULTS);
  const png = await renderPage(src, await src.getPage(1), 200);
  await src.destroy();
  return greyOf(await loadImage(png));
}

/**
 * Page image -> "scan". Every scan first goes through the office scanner (rotated up to ±1.5°,
 * noised, downsampled), which draws from the corpus's random stream, so the documents after it are
 * the same whatever scanner a document gets. Photos and faxes then start again from the page with
 * their own stream (scan-effects.ts); a sheet turned on the glass is turned last. JPEG for office
 * scans and photos, PNG for faxes (black and white compresses better losslessly), in an image-only PDF.
 */
async function scannedPdf(textBytes: Uint8Array, style: ScanStyle, seed: number): Promise<Uint8Array> {
  const src = await openPdf(textBytes, EXTRACT_LIMIT_DEFAULTS);
  const png = await renderPage(src, await src.getPage(1), 150);
  await src.destroy();
  const img = await loadImage(png);
  const scale = 0.88;
  const w = Math.round(img.width * scale);
  const h = Math.round(img.height * scale);
  let canvas: Canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#f4f2ee';
  ctx.fillRect(0, 0, w, h);
  const angle = ((rand() * 3 - 1.5) * Math.PI) / 180;
  ctx.translate(w / 2, h / 2);
  ctx.rotate(angle);
  ctx.drawImage(img, -w / 2 + int(-6, 6), -h / 2 + int(-6, 6), w, h);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  const data = ctx.getImageData(0, 0, w, h);
  const px = data.data;
  for (let i = 0; i < px.length; i += 4) {
    const grey = 0.3 * (px[i] as number) + 0.59 * (px[i + 1] as number) + 0.11 * (px[i + 2] as number);
    let v = grey * 0.92 + 10 + (rand() + rand() + rand() - 1.5) * 28;
    if (rand() < 0.0015) v = int(0, 90); // dust speckles
    v = Math.max(0, Math.min(255, v));
    px[i] = px[i + 1] = px[i + 2] = v;
  }
  ctx.putImageData(data, 0, 0);
  if (style.effect !== 'office') {
    const own = R.prng(seed);
    canvas = canvasOf(style.effect === 'fax' ? fax(await faxPage(textBytes, own), own) : photo(greyOf(img), own));
  }
  if (style.turn !== 0) {
    const quarter = style.turn !== 180;
    const turned = createCanvas(quarter ? canvas.height : canvas.width, quarter ? canvas.width : canvas.height);
    const t = turned.getContext('2d');
    t.translate(turned.width / 2, turned.height / 2);
    t.rotate((style.turn * Math.PI) / 180);
    t.drawImage(canvas, -canvas.width / 2, -canvas.height / 2);
    canvas = turned;
  }
  const doc = await PDFDocument.create();
  doc.setCreationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setModificationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setProducer('covercheck make-corpus scanner');
  const size: [number, number] = style.turn === 90 || style.turn === 270 ? [841.89, 595.28] : [595.28, 841.89];
  const page = doc.addPage(size);
  const embedded =
    style.effect === 'fax'
      ? await doc.embedPng(await canvas.encode('png'))
      : await doc.embedJpg(await canvas.encode('jpeg', style.effect === 'photo' ? 70 : 55));
  page.drawImage(embedded, { x: 0, y: 0, width: size[0], height: size[1] });
  return doc.save({ useObjectStreams: false });
}

async function main(): Promise<void> {
  rand = R.prng(SEED);
  mkdirSync(OUT_DIR, { recursive: true });
  for (const f of readdirSync(OUT_DIR)) if (/^\d{3}\.(pdf|json)$/.test(f)) rmSync(path.join(OUT_DIR, f));
  let bytes = 0;
  const tally: Record<string, number> = {};
  let scans = 0;
  for (let i = 0; i < COUNT; i++) {
    const spec = buildSpec(i);
    const rows = compose(spec);
    const text = await textPdf(rows);
    const style = spec.kind === 'scanned' ? scanStyle(scans++) : undefined;
    const pdf = style ? await scannedPdf(text, style, SEED + i) : text;
    bytes += pdf.length;
    writeFileSync(path.join(OUT_DIR, `${spec.id}.pdf`), pdf);
    const truth = {
      ...spec.truth,
      coverage: spec.coverage.truth,
      kind: spec.kind,
      ...(style ? { degradation: degradation(style) } : {}),
      language: spec.language,
      layout: spec.layout,
      country: spec.country,
      printed: spec.printed,
    };
    writeFileSync(path.join(OUT_DIR, `${spec.id}.json`), JSON.stringify(truth, null, 2) + '\n');
    for (const k of [spec.kind, spec.country, spec.type, spec.language, spec.layout, ...(style ? [degradation(style)] : [])])
      tally[k] = (tally[k] ?? 0) + 1;
  }
  // The families draw from their own stream; their scans continue the scan cycle.
  rand = R.prng(FAMILY_SEED);
  let n = COUNT;
  for (const family of FAMILIES) {
    for (let k = 0; k < PER_FAMILY; k++) {
      const { spec, rows } = familyDoc(family, ++n, k);
      const text = await textPdf(rows);
      const style = spec.kind === 'scanned' ? scanStyle(scans++) : undefined;
      const pdf = style ? await scannedPdf(text, style, FAMILY_SEED + n) : text;
      bytes += pdf.length;
      writeFileSync(path.join(OUT_DIR, `${spec.id}.pdf`), pdf);
      const truth = {
        ...spec.truth,
        coverage: spec.coverage.truth,
        kind: spec.kind,
        ...(style ? { degradation: degradation(style) } : {}),
        language: spec.language,
        layout: family,
        family,
        country: spec.country,
        printed: spec.printed,
      };
      writeFileSync(path.join(OUT_DIR, `${spec.id}.json`), JSON.stringify(truth, null, 2) + '\n');
      for (const t of [spec.kind, spec.country, spec.type, family, ...(style ? [degradation(style)] : [])]) tally[t] = (tally[t] ?? 0) + 1;
    }
  }
  console.log(`${n} documents, ${(bytes / 1024 / 1024).toFixed(2)} MB in ${OUT_DIR}`);
  console.log(tally);
}

await main();
