/**
 * Pages of a policy document drawn at random from a seed, as a drawing (technicalities/drawing.ts) whose field
 * values and labels are marked, so any technicality can be applied to it: key-value blocks (a tab or a colon),
 * labels over their values in a grid, two key-value columns side by side, a table whose period header is merged
 * over sub-headers, and the line-level generator's documents (document-lines.ts: prose, carrier sentences, digit
 * groups, letter-spacing) set as pages. Sizes, margins and tab stops vary per document; distractors (customer and
 * form numbers, an issue date, a phone line, a premium, an IBAN) stand among the fields.
 *
 * Label wordings are the line-level generator's printed wordings and the language packs' own names of each field
 * and coverage detail (`addon.reviewLabels`, `addon.coverageValues`); month names come from the packs too.
 */
import { LANGUAGE_PACKS, type TInsuranceType, type TLanguage } from '../../shared/packs/index.js';
import type { Line } from '../../connector/src/extract/reading/lines.js';
import {
  addressLine,
  COUNTRY_OF,
  insurerName,
  intermediaryName,
  NEGATIVE_KINDS,
  negativeDocument,
  plate,
  POLICY_KINDS,
  policyDocument,
  policyNumber,
  printDate,
  WORDING,
  type GeneratedTruth,
  type NegativeKind,
  type PolicyKind,
} from './document-lines.js';
import { textWidth, type Control, type Drawing, type DrawnText } from './technicalities/drawing.js';
import { chance, int, pick, type Rand } from '../random.js';

const digits = (r: Rand, n: number): string => Array.from({ length: n }, (_, i) => String(i === 0 ? int(r, 1, 9) : int(r, 0, 9))).join('');

/** Layouts drawn here, each with its labels and values marked; `lines/<kind>` sets a line-level document as a page. */
export const DRAWN_LAYOUTS = ['key_value', 'label_above', 'two_column', 'merged_table'] as const;
export type DrawnLayout = (typeof DRAWN_LAYOUTS)[number];

export interface LaidOutDocument {
  drawing: Drawing;
  /** The fields as the truth states them; empty for a document that is no policy. */
  truth: Partial<GeneratedTruth>;
  language: TLanguage;
  layout: string;
  /** False when the drawing's labels and values are not marked (a line-level document set as a page). */
  marked: boolean;
  negative?: NegativeKind;
}

/** A row of the key-value block: the printed label, the value, and the name a careful form author gives the field. */
interface Entry {
  label: string;
  value: string;
  name: string;
  control?: Control;
}

/** Field names as form authors who name fields write them; some say nothing a reader recognises ("inception"). */
const FIELD_NAMES: Record<TLanguage, Record<string, string[]>> = {
  en: {
    policy: ['policy_number', 'PolicyNumber', 'policyNo', 'Policy Number', 'certificate_no'],
    insurer: ['insurer', 'insurer_name', 'Insurer', 'underwriter'],
    broker: ['broker', 'broker_name', 'intermediary'],
    start: ['start_date', 'effectiveDate', 'cover_start', 'inception'],
    end: ['expiry_date', 'end_date', 'renewalDate', 'expiry'],
    period: ['period_of_insurance', 'insurance_period', 'cover_dates'],
    plate: ['registration', 'vehicle_registration', 'RegNo', 'vehicle_reg'],
    customer: ['customer_number', 'CustomerRef', 'account_no'],
    issued: ['issue_date', 'date_issued'],
    phone: ['phone', 'telephone', 'claims_line'],
    form: ['form_number', 'form_ref'],
    premium: ['premium', 'total_premium'],
    cover: ['cover_level', 'cover'],
  },
  de: {
    policy: ['Versicherungsscheinnummer', 'VertragsNr', 'vertragsnummer', 'Policennummer'],
    insurer: ['Versicherer', 'versicherer_name', 'Risikotraeger'],
    broker: ['Vermittler', 'makler', 'vermittler_name'],
    start: ['Versicherungsbeginn', 'beginn', 'gueltig_ab', 'vertragsbeginn'],
    end: ['Ablauf', 'Versicherungsende', 'gueltig_bis', 'ende'],
    period: ['Versicherungszeitraum', 'laufzeit'],
    plate: ['Kennzeichen', 'amtl_kennzeichen', 'kfz_kennzeichen'],
    customer: ['Kundennummer', 'kunden_nr', 'partnernummer'],
    issued: ['Ausstellungsdatum', 'datum'],
    phone: ['Telefon', 'telefonnummer'],
    form: ['Formular', 'formularnummer'],
    premium: ['Beitrag', 'jahresbeitrag'],
    cover: ['Deckungsumfang', 'tarif'],
  },
  fr: {
    policy: ['numero_contrat', 'NumeroPolice', 'num_contrat', 'numero_adherent'],
    insurer: ['assureur', 'compagnie', 'organisme_assureur'],
    broker: ['courtier', 'intermediaire', 'distributeur'],
    start: ['date_effet', 'DateDebut', 'debut_garantie', 'effet'],
    end: ['date_echeance', 'DateFin', 'fin_garantie', 'echeance'],
    period: ['periode_validite', 'validite'],
    plate: ['immatriculation', 'num_immat'],
    customer: ['numero_client', 'identifiant', 'ref_client'],
    issued: ['date_emission', 'fait_le'],
    phone: ['telephone', 'tel_assistance'],
    form: ['reference_imprime', 'ref_formulaire'],
    premium: ['prime', 'cotisation'],
    cover: ['formule', 'garanties'],
  },
};

const PREMIUM: Record<TLanguage, string[]> = {
  en: ['Annual premium', 'Total premium'],
  de: ['Jahresbeitrag', 'Beitrag'],
  fr: ['Prime annuelle', 'Cotisation'],
};
const FORM: Record<TLanguage, string[]> = { en: ['Form', 'Form ref.'], de: ['Formular', 'Vordruck'], fr: ['Réf. imprimé', 'Imprimé'] };
const PROSE: Record<TLanguage, string[]> = {
  en: [
    'Please read this schedule together with your policy wording and keep it in a safe place.',
    'If any of the details above are wrong, tell us within 14 days.',
    'This document does not replace your policy terms and conditions.',
  ],
  de: [
    'Bitte prüfen Sie die Angaben und bewahren Sie dieses Dokument sorgfältig auf.',
    'Es gelten die beigefügten Versicherungsbedingungen.',
    'Änderungen teilen Sie uns bitte innerhalb von 14 Tagen mit.',
  ],
  fr: [
    'Veuillez vérifier ces informations et conserver ce document.',
    'Le présent document ne se substitue pas aux conditions générales du contrat.',
    'Toute modification doit nous être signalée sous 14 jours.',
  ],
};

/** A label wording of a field: the line-level generator's, or the pack's own name of the field. */
function labelOf(r: Rand, l: TLanguage, field: 'policy' | 'insurer' | 'start' | 'end' | 'registration'): string {
  const pack = LANGUAGE_PACKS[l].addon.reviewLabels;
  const packLabel = {
    policy: pack.policy_number,
    insurer: pack.insurer,
    start: pack.start_date,
    end: pack.end_date,
    registration: pack.vehicle_registration,
  }[field];
  return chance(r, 0.2) ? packLabel : pick(r, WORDING[l][field]);
}

/** A coverage detail row in the pack's wording: a distractor value beside the fields, and what a policy prints. */
function coverageEntry(r: Rand, l: TLanguage, type: TInsuranceType): Entry | null {
  const addon = LANGUAGE_PACKS[l].addon;
  if (type === 'motor')
    return {
      label: addon.reviewLabels['coverage.motor_cover'],
      value: pick(r, Object.values(addon.coverageValues.motor_cover)),
      name: pick(r, FIELD_NAMES[l].cover!),
    };
  if (type === 'travel')
    return {
      label: addon.reviewLabels['coverage.region'],
      value: pick(r, Object.values(addon.coverageValues.region)),
      name: 'region',
      control: { kind: 'choice', options: Object.values(addon.coverageValues.region) },
    };
  return null;
}

interface Content {
  l: TLanguage;
  type: TInsuranceType;
  truth: GeneratedTruth;
  insurer: { legal: string; brand: string };
  broker?: string;
  head: string[];
  title: string;
  /** The fields and distractors, in print order. */
  entries: Entry[];
  /** Where the period goes: two key-value rows, one row, or a table under a merged header. */
  periodHow: 'two' | 'one' | 'table';
  /** The printed start and end (for the table). */
  printed: { start: string; end: string; plate?: string };
  footer: string[];
}

function content(r: Rand, l: TLanguage, layout: DrawnLayout): Content {
  const w = WORDING[l];
  const names = FIELD_NAMES[l];
  const c = COUNTRY_OF[l];
  const type = pick(r, ['motor', 'travel', 'health'] as const);
  const ins = insurerName(r, l);
  const start = new Date(Date.UTC(2025, 0, 1) + int(r, 0, 540) * 86_400_000);
  if (chance(r, 0.3)) start.setUTCDate(1);
  const end =
    type === 'travel' && chance(r, 0.5)
      ? new Date(start.getTime() + int(r, 6, 40) * 86_400_000)
      : new Date(Date.UTC(start.getUTCFullYear() + 1, start.getUTCMonth(), start.getUTCDate()) - 86_400_000);
  const iso = (d: Date): string => d.toISOString().slice(0, 10);
  const truth: GeneratedTruth = {
    policy_number: policyNumber(r, chance(r, 0.15)).printed,
    insurer: ins.legal,
    insurance_type: type,
    start_date: iso(start),
    end_date: iso(end),
    ...(type === 'motor' ? { vehicle_registration: plate(r, c) } : {}),
  };
  const date = (d: string): string => printDate(r, l, d);
  const printed = { start: date(truth.start_date), end: date(truth.end_date) };
  const broker = chance(r, 0.25) ? intermediaryName(r, l) : undefined;
  const brandHead = !broker && chance(r, 0.4);
  const head = [broker && chance(r, 0.5) ? broker : brandHead ? ins.brand : ins.legal, addressLine(r, l, chance(r, 0.25))];
  if (chance(r, 0.5)) head.push(`${pick(r, w.phone)} ${pick(r, ['0800 123 4567', '+49 89 1234 5678', '01 23 45 67 89', '0113 496 0321'])}`);

  const entries: Entry[] = [];
  const distractors: Entry[] = [];
  if (chance(r, 0.6)) distractors.push({ label: pick(r, w.customer), value: digits(r, int(r, 6, 9)), name: pick(r, names.customer!) });
  if (chance(r, 0.4))
    distractors.push({
      label: pick(r, w.issued),
      value: date(iso(new Date(start.getTime() - int(r, 3, 30) * 86_400_000))),
      name: pick(r, names.issued!),
    });
  if (chance(r, 0.3))
    distractors.push({
      label: pick(r, FORM[l]),
      value: `${pick(r, ['MC', 'KR', 'AV', 'F'])}-${digits(r, 4)}/${digits(r, 2)}`,
      name: pick(r, names.form!),
    });
  if (chance(r, 0.3))
    distractors.push({
      label: pick(r, PREMIUM[l]),
      value: `${l === 'en' ? '£' : ''}${int(r, 80, 2400)}${l === 'en' ? '.' : ','}${digits(r, 2)}${l === 'en' ? '' : ' €'}`,
      name: pick(r, names.premium!),
    });
  const cover = chance(r, 0.5) ? coverageEntry(r, l, type) : null;
  if (cover) distractors.push(cover);

  entries.push({ label: labelOf(r, l, 'policy'), value: truth.policy_number, name: pick(r, names.policy!) });
  // Without an insurer row, the legal name must be printed elsewhere: the letterhead or a footer says it.
  const insurerRow = broker || chance(r, 0.5);
  if (broker) entries.push({ label: pick(r, w.intermediaryLabels), value: broker, name: pick(r, names.broker!) });
  if (insurerRow) entries.push({ label: labelOf(r, l, 'insurer'), value: ins.legal, name: pick(r, names.insurer!) });
  const periodHow = layout === 'merged_table' ? 'table' : pick(r, ['two', 'two', 'one'] as const);
  if (periodHow === 'two')
    entries.push(
      { label: labelOf(r, l, 'start'), value: printed.start, name: pick(r, names.start!) },
      { label: labelOf(r, l, 'end'), value: printed.end, name: pick(r, names.end!) },
    );
  if (periodHow === 'one')
    entries.push({
      label: pick(r, w.period),
      value: `${printed.start} ${pick(r, { en: ['to', '-'], de: ['bis', '-'], fr: ['au', '-'] }[l])} ${printed.end}`,
      name: pick(r, names.period!),
    });
  if (truth.vehicle_registration && periodHow !== 'table')
    entries.push({ label: labelOf(r, l, 'registration'), value: truth.vehicle_registration, name: pick(r, names.plate!) });
  // Distractors before, among and after the fields.
  for (const d of distractors) entries.splice(int(r, 0, entries.length), 0, d);

  const footer: string[] = [];
  if (chance(r, 0.4)) footer.push(pick(r, PROSE[l]));
  if (chance(r, 0.3))
    footer.push(`IBAN ${c === 'UK' ? 'GB' : c}${digits(r, 2)} ${digits(r, 4)} ${digits(r, 4)} ${digits(r, 4)} ${digits(r, 4)}`);
  if (brandHead && !insurerRow) footer.push(w.tradingName.replace('{b}', ins.brand).replace('{i}', ins.legal));
  else if (!insurerRow && head[0] !== ins.legal) footer.push(`${ins.legal} · ${addressLine(r, l, false)}`);
  else if (chance(r, 0.4)) footer.push(`${ins.legal} · ${addressLine(r, l, false)}`);
  return {
    l,
    type,
    truth,
    insurer: ins,
    ...(broker ? { broker } : {}),
    head,
    title: pick(r, w.titles[type]),
    entries,
    periodHow,
    printed: { ...printed, ...(truth.vehicle_registration ? { plate: truth.vehicle_registration } : {}) },
    footer,
  };
}

/** A policy document drawn in one of the marked layouts. */
export function drawnPolicy(r: Rand, l: TLanguage, layout: DrawnLayout): LaidOutDocument {
  const k = content(r, l, layout);
  const size = pick(r, [8, 9, 9, 10, 10, 11]);
  const left = int(r, 40, 72);
  const texts: DrawnText[] = [];
  let y = 842 - int(r, 40, 70);
  const step = size * (1.7 + r() * 0.7);
  k.head.forEach((t, i) => {
    texts.push({ text: t, x: left, y, size: i === 0 ? size + 4 : size - 1, bold: i === 0 });
    y -= i === 0 ? size + 8 : size + 3;
  });
  y -= size * 2;
  texts.push({ text: k.title, x: left, y, size: size + 3, bold: true });
  y -= size * 3;
  const label = (e: Entry, x: number, yy: number, s = size): DrawnText => ({ text: e.label, x, y: yy, size: s, role: 'label' });
  const value = (e: Entry, x: number, yy: number): DrawnText => ({
    text: e.value,
    x,
    y: yy,
    size,
    role: 'value',
    field: e.name,
    ...(e.control ? { control: e.control } : {}),
  });
  const widest = Math.max(...k.entries.map((e) => textWidth(e.label, size)));
  if (layout === 'key_value' || layout === 'merged_table') {
    const colon = chance(r, 0.3);
    const tab = left + Math.max(widest + size * 2.5, int(r, 140, 220));
    for (const e of k.entries) {
      if (colon) {
        texts.push(label({ ...e, label: `${e.label}:` }, left, y));
        texts.push(value(e, left + textWidth(`${e.label}: `, size), y));
      } else {
        texts.push(label(e, left, y));
        texts.push(value(e, tab, y));
      }
      y -= step;
    }
  } else if (layout === 'label_above') {
    const columns = chance(r, 0.5) ? 2 : 3;
    const colWidth = (595 - 2 * left) / columns;
    let col = 0;
    const small = Math.max(6, size - 2);
    for (const e of k.entries) {
      const wide = Math.max(textWidth(e.value, size), textWidth(e.label, small)) > colWidth - size * 2;
      if (col > 0 && (wide || col >= columns)) {
        y -= step * 2.2;
        col = 0;
      }
      const x = left + col * colWidth;
      texts.push(label(e, x, y, small));
      texts.push(value(e, x, y - size * 1.5));
      col = wide ? columns : col + 1;
    }
    y -= step * 2.2;
  } else {
    // Two key-value columns side by side; a value too wide for its column gets a row of its own.
    const half = (595 - 2 * left) / 2;
    const tab = Math.max(widest + size * 2, 100);
    const narrow = k.entries.filter((e) => tab + textWidth(e.value, size) < half - size * 2);
    const wide = k.entries.filter((e) => !narrow.includes(e));
    for (const e of wide) {
      texts.push(label(e, left, y), value(e, left + tab, y));
      y -= step;
    }
    const rows = Math.ceil(narrow.length / 2);
    for (let i = 0; i < rows; i++) {
      const a = narrow[i]!;
      texts.push(label(a, left, y), value(a, left + tab, y));
      const b = narrow[i + rows];
      if (b) texts.push(label(b, left + half, y), value(b, left + half + tab, y));
      y -= step;
    }
  }
  if (k.periodHow === 'table') {
    // A header merged over two sub-headers ("Versicherungszeitraum" over "vom" and "bis"), the values below.
    y -= step;
    const [from, to] = pick(r, WORDING[k.l].subHeaders);
    const colW = int(r, 110, 140);
    let x = left;
    const cols: Array<{ head: string; value: Entry }> = [];
    if (k.printed.plate)
      cols.push({
        head: labelOf(r, k.l, 'registration'),
        value: { label: '', value: k.printed.plate, name: pick(r, FIELD_NAMES[k.l].plate!) },
      });
    for (const col of cols) {
      texts.push({ text: col.head, x, y, size, bold: true, role: 'label' });
      texts.push(value(col.value, x, y - 2 * step));
      x += Math.max(colW, textWidth(col.head, size, true) + size * 2);
    }
    texts.push({ text: pick(r, WORDING[k.l].period), x: x + colW / 3, y, size, bold: true, role: 'label' });
    texts.push({ text: from, x, y: y - step, size, role: 'label' });
    texts.push({ text: to, x: x + colW, y: y - step, size, role: 'label' });
    texts.push(value({ label: '', value: k.printed.start, name: pick(r, FIELD_NAMES[k.l].start!) }, x, y - 2 * step));
    texts.push(value({ label: '', value: k.printed.end, name: pick(r, FIELD_NAMES[k.l].end!) }, x + colW, y - 2 * step));
    y -= 3 * step;
  }
  y -= step;
  for (const t of k.footer) {
    texts.push({ text: t, x: left, y, size: size - 1 });
    y -= size * 1.6;
  }
  texts.push({ text: `${pick(r, ['Page', 'Seite'])} 1/1`, x: 595 - left - 40, y: 30, size: size - 2 });
  return { drawing: { pages: [{ width: 595, height: 842, texts }] }, truth: k.truth, language: k.l, layout, marked: true };
}

/** Text lines (what the line-level generator draws) set as a page: cells at their x, lines top down, nothing marked. */
export function linesAsDrawing(r: Rand, lines: Line[]): Drawing {
  const size = pick(r, [8, 9, 10]);
  const step = size * (1.8 + r() * 0.6);
  let y = 842 - int(r, 50, 80);
  const texts: DrawnText[] = [];
  lines.forEach((line, i) => {
    const s = i === 0 ? size + 4 : size;
    let end = 0;
    const row: DrawnText[] = [];
    for (const c of line.cells) {
      // A cell starts where it was set, or a column gap after the one before it: never over it.
      const x = Math.max(c.x * 0.95 - 10, end + s * 1.8);
      row.push({ text: c.text, x, y, size: s, bold: i === 0 });
      end = x + textWidth(c.text, s, i === 0);
    }
    // A line too wide for the page is set smaller.
    const shrink = end > 560 ? 540 / end : 1;
    for (const t of row) texts.push(shrink < 1 ? { ...t, x: t.x * shrink, size: Math.max(5, t.size * shrink) } : t);
    y -= i === 0 ? s + 10 : step;
  });
  return { pages: [{ width: 595, height: 842, texts }] };
}

/** A line-level policy document of a kind (document-lines.ts) as a page. */
export function linesPolicy(r: Rand, seed: number, kind: PolicyKind): LaidOutDocument {
  const g = policyDocument(seed, kind);
  return { drawing: linesAsDrawing(r, g.lines), truth: g.truth, language: g.language, layout: `lines/${kind}`, marked: false };
}

/** A document that is no policy (an invoice, a bank statement, a letter) as a page: no field is right but none. */
export function negativePage(r: Rand, seed: number, kind: NegativeKind): LaidOutDocument {
  const g = negativeDocument(seed, kind);
  return {
    drawing: linesAsDrawing(r, g.lines),
    truth: {},
    language: g.language,
    layout: `negative/${kind}`,
    marked: false,
    negative: kind,
  };
}

/** A cover letter before the schedule, full of other numbers and dates: a renewal pack as it is posted. */
export function coverLetter(r: Rand, l: TLanguage): DrawnText[] {
  const ref = `${digits(r, 4)}/${pick(r, ['KC', 'RB', 'MT'])}/${digits(r, 2)}`;
  const day = printDate(r, l, `2026-0${int(r, 1, 9)}-1${int(r, 0, 9)}`);
  const lines = {
    en: [
      'Dear customer,',
      'Please find enclosed your insurance documents. Keep them in a safe place.',
      `Our reference ${ref}, your adviser reference ${digits(r, 4)}-${digits(r, 4)}.`,
      `If anything is wrong, call us on 0800 ${digits(r, 3)} ${digits(r, 4)} within 14 days of ${day}.`,
      `Your direct debit of £${int(r, 20, 90)}.${digits(r, 2)} will be collected on the 1st of each month.`,
      'Yours sincerely,',
      'Customer Services',
    ],
    de: [
      'Sehr geehrte Kundin, sehr geehrter Kunde,',
      'anbei erhalten Sie Ihre Versicherungsunterlagen. Bitte bewahren Sie sie sorgfältig auf.',
      `Unser Zeichen ${ref}, Ihre Kundennummer ${digits(r, 8)}.`,
      `Bei Fragen erreichen Sie uns unter 0800 ${digits(r, 3)} ${digits(r, 4)}, Schreiben vom ${day}.`,
      `Der Beitrag von ${int(r, 20, 90)},${digits(r, 2)} € wird monatlich abgebucht.`,
      'Mit freundlichen Grüßen',
      'Ihr Kundenservice',
    ],
    fr: [
      'Madame, Monsieur,',
      'Veuillez trouver ci-joint vos documents d’assurance. Conservez-les précieusement.',
      `Nos références ${ref}, votre numéro client ${digits(r, 8)}.`,
      `Pour toute question, appelez le 09 ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} (courrier du ${day}).`,
      `Votre prélèvement de ${int(r, 20, 90)},${digits(r, 2)} € sera effectué le 5 de chaque mois.`,
      'Veuillez agréer nos salutations distinguées.',
      'Le service clients',
    ],
  }[l];
  return lines.map((text, i) => ({ text, x: 60, y: 700 - i * 22, size: 10 }));
}

export { NEGATIVE_KINDS, POLICY_KINDS };
