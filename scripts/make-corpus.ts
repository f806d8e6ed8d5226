/** Generates the extraction test corpus (test/fixtures/policies/NNN.pdf + NNN.json) deterministically from a seeded PRNG. */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage, type Canvas } from '@napi-rs/canvas';
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { EXTRACT_LIMIT_DEFAULTS } from '../connector/src/config.js';
import { openPdf } from '../connector/src/extract/pdf.js';
import { renderPage } from '../connector/src/extract/render.js';
import { COUNTRIES, INSURANCE_TYPES, type TCountry, type TInsuranceType, type TLanguage } from '../shared/packs/index.js';
import { MOTOR_COVER_LEVELS, TRAVEL_REGIONS, type TMotorCoverLevel, type TTravelRegion, type TTripType } from '../shared/coverage-terms.js';
import { fax, photo, type Grey } from './scan-effects.js';

// The generator's tables are Records over the packs' codes: a new country, type or language is a gap the compiler names here too.
type Country = TCountry;
type Kind = TInsuranceType;
type Lang = TLanguage;
type Layout = 'certificate' | 'schedule' | 'letter' | 'table';

const OUT_DIR = fileURLToPath(new URL('../test/fixtures/policies/', import.meta.url));
const COUNT = 66;
const SEED = 20260301;

/** mulberry32: small, fast, and the same sequence on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
let rand = prng(SEED);
const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const digits = (n: number): string => Array.from({ length: n }, () => String(int(0, 9))).join('');
const letters = (n: number, alphabet = 'ABCDEFGHJKLMNPRSTUVWXYZ'): string => Array.from({ length: n }, () => pick([...alphabet])).join('');

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
    ['Gothaer Allgemeine Versicherung Aktiengesellschaft', 'Gothaer Allgemeine Versicherung Aktiengesellschaft', ['motor', 'travel', 'health']],
    ['Generali Deutschland Versicherung AG', 'Generali Deutschland Versicherung AG', ['motor', 'travel', 'health']],
    ['Provinzial Versicherung AG', 'Provinzial Versicherung AG', ['motor', 'health']],
    ['HUK24 AG', 'HUK24 AG', ['motor']],
    ['LVM Landwirtschaftlicher Versicherungsverein Münster a.G.', 'LVM Landwirtschaftlicher Versicherungsverein Münster a.G.', ['motor', 'travel']],
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
      motor: [() => `KH-${digits(4)}-${digits(6)}`, () => `${digits(2)}.${digits(3)}.${digits(3)}-${digits(1)}`, () => `AS ${digits(3)} ${digits(6)}`],
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
const ordinal = (n: number): string => (n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th');

/** One date style per document, so a document reads consistently, as real ones do. */
function dateStyle(lang: Lang): (d: Date) => string {
  const D = (d: Date): [number, number, number] => [d.getUTCDate(), d.getUTCMonth(), d.getUTCFullYear()];
  const styles: Record<Lang, Array<(d: Date) => string>> = {
    en: [
      (d) => { const [dd, m, y] = D(d); return `${pad(dd)}/${pad(m + 1)}/${y}`; },
      (d) => { const [dd, m, y] = D(d); return `${dd} ${MONTHS.en[m]} ${y}`; },
      (d) => { const [dd, m, y] = D(d); return `${dd}${ordinal(dd)} ${MONTHS.en[m]} ${y}`; },
      (d) => { const [dd, m, y] = D(d); return `${dd} ${(MONTHS.en[m] as string).slice(0, 3)} ${y}`; },
      (d) => iso(d),
    ],
    de: [
      (d) => { const [dd, m, y] = D(d); return `${pad(dd)}.${pad(m + 1)}.${y}`; },
      (d) => { const [dd, m, y] = D(d); return `${dd}. ${MONTHS.de[m]} ${y}`; },
      (d) => { const [dd, m, y] = D(d); return `${dd}. ${(MONTHS.de[m] as string).replace('ä', 'ae')} ${y}`; },
      (d) => { const [dd, m, y] = D(d); return `${pad(dd)}.${pad(m + 1)}.${String(y).slice(2)}`; },
      (d) => iso(d),
    ],
    fr: [
      (d) => { const [dd, m, y] = D(d); return `${pad(dd)}/${pad(m + 1)}/${y}`; },
      (d) => { const [dd, m, y] = D(d); return `${dd === 1 ? '1er' : dd} ${MONTHS.fr[m]} ${y}`; },
      (d) => { const [dd, m, y] = D(d); return `${pad(dd)}.${pad(m + 1)}.${y}`; },
      (d) => iso(d),
    ],
  };
  return pick(styles[lang]);
}

// ---- Wording ----------------------------------------------------------------------------------

const LABELS: Record<Lang, { policy: string[]; insurer: string[]; start: string[]; end: string[]; period: string[]; reg: string[]; customer: string[]; issued: string[]; born: string[]; premium: string[] }> = {
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
    travel: ['Reiseversicherung - Versicherungsbestätigung', 'Versicherungsschein Auslandsreise-Krankenversicherung', 'Ihre Reiserücktrittsversicherung'],
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
const VEHICLES = ['Volkswagen Golf 1.5 TSI', 'Ford Focus 1.0 EcoBoost', 'Renault Clio V', 'Peugeot 208', 'BMW 320d Touring', 'Toyota Yaris Hybrid'];

// ---- Coverage wording (ground truth: the normalised value, and the plan name as printed) -------

/**
 * Cover levels, trip types, areas and plans as such documents print them: a label and its value, and
 * for letters a sentence. UK schedules say "Comprehensive" or "Third Party, Fire and Theft"; a German
 * Versicherungsschein lists Kfz-Haftpflicht with Teil- or Vollkasko and its Selbstbeteiligung; a French
 * contract names its formule ("Tous risques", "Tiers étendu", "Au tiers"). Travel: single trip or annual
 * multi-trip, and the area (UK/Europe/worldwide excluding USA, Canada and the Caribbean/worldwide).
 */
const COVER_WORDING: Record<Lang, {
  motorLabel: string[];
  motor: Record<TMotorCoverLevel, string[]>;
  tripLabel: string[];
  trip: Record<TTripType, string[]>;
  regionLabel: string[];
  region: Record<TTravelRegion, string[]>;
  planLabel: string[];
  plans: string[];
  letter: { motor: (v: string) => string; travel: (trip: string, region: string) => string; health: (v: string) => string };
}> = {
  en: {
    motorLabel: ['Cover', 'Type of cover', 'Level of cover', 'Cover type'],
    motor: {
      comprehensive: ['Comprehensive', 'Comprehensive cover', 'COMPREHENSIVE'],
      third_party_fire_theft: ['Third Party, Fire and Theft', 'Third party, fire & theft', 'TPFT'],
      third_party: ['Third Party Only', 'Third party only'],
    },
    tripLabel: ['Type of policy', 'Policy type', 'Cover type'],
    trip: { single_trip: ['Single trip', 'Single Trip', 'Single-trip cover'], annual_multi_trip: ['Annual multi-trip', 'Annual Multi-Trip', 'Annual multi-trip (max. 31 days per trip)'] },
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
    trip: { single_trip: ['Einzelreise', 'Einzelreiseversicherung'], annual_multi_trip: ['Jahresreiseversicherung', 'Jahresvertrag (alle Reisen bis 56 Tage)', 'Jahrespolice'] },
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
    trip: { single_trip: ['Voyage unique', 'Temporaire (un seul voyage)'], annual_multi_trip: ['Annuelle multi-voyages', 'Contrat annuel multi-voyages'] },
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
  const r = prng(SEED + 7919 * (i + 1));
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
    return { truth: { trip_type: trip, region }, printed: { rows: [[choose(w.tripLabel), t], [choose(w.regionLabel), g]], sentence: w.letter.travel(t, g) } };
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
  const truth: Truth = { policy_number: policy, insurer: insurerCanonical, insurance_type: type, start_date: iso(start), end_date: iso(end) };
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
  const office = { UK: 'Registered in England No. 0' + digits(7), DE: `Amtsgericht ${pick(['Coburg', 'Hannover', 'Köln'])} HRB ${digits(4)}`, FR: `RCS Paris B ${digits(3)} ${digits(3)} ${digits(3)}` }[spec.country];
  rows.push(row({ x: 60, text: p.insurer, bold: true, size: 15 }));
  rows.push(text(pick(ADDRESSES[spec.country]).replace(/^[^,]*, /, '') + ' · ' + (lang === 'de' ? 'Tel. ' : lang === 'fr' ? 'Tél. ' : 'Tel. ') + `0${digits(3)} ${digits(6)}`));
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
    for (const run of r.runs) page.drawText(run.text, { x: run.x, y, size: run.size ?? 10.5, font: run.bold ? bold : regular, color: rgb(0.08, 0.08, 0.1) });
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
const scanStyle = (ordinal: number): ScanStyle => (ordinal < 5 ? { effect: 'office', turn: 0 } : (SCAN_CYCLE[(ordinal - 5) % SCAN_CYCLE.length] as ScanStyle));
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
    const own = prng(seed);
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
  const embedded = style.effect === 'fax' ? await doc.embedPng(await canvas.encode('png')) : await doc.embedJpg(await canvas.encode('jpeg', style.effect === 'photo' ? 70 : 55));
  page.drawImage(embedded, { x: 0, y: 0, width: size[0], height: size[1] });
  return doc.save({ useObjectStreams: false });
}

async function main(): Promise<void> {
  rand = prng(SEED);
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
    const truth = { ...spec.truth, coverage: spec.coverage.truth, kind: spec.kind, ...(style ? { degradation: degradation(style) } : {}), language: spec.language, layout: spec.layout, country: spec.country, printed: spec.printed };
    writeFileSync(path.join(OUT_DIR, `${spec.id}.json`), JSON.stringify(truth, null, 2) + '\n');
    for (const k of [spec.kind, spec.country, spec.type, spec.language, spec.layout, ...(style ? [degradation(style)] : [])]) tally[k] = (tally[k] ?? 0) + 1;
  }
  console.log(`${COUNT} documents, ${(bytes / 1024 / 1024).toFixed(2)} MB in ${OUT_DIR}`);
  console.log(tally);
}

await main();
