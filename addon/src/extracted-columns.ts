/**
 * Which column of the sheet each extracted value goes into (by the header's words, one value per column),
 * and which one takes the link to the Drive file it was read from. Plain functions, without a sheet.
 */
import type { TLanguage } from '../../shared/packs/index.js';
import { REVIEW_KEYS, REVIEW_LABELS, type TReviewKey } from '../../shared/review.js';

/**
 * Header words per extracted value (EN/DE/FR), on the folded header; `unless` keeps a generic word from
 * taking another value's column: "Trip type" holds "type" but is the trip's, "Fin de garantie" holds
 * "garantie" but is the end date's.
 */
const FIELD_HEADERS: Record<TReviewKey, { match: RegExp; unless?: RegExp }> = {
  policy_number: { match: /(policy|police|versicherungsschein|vsnr|vertrag|contrat).*(number|no|nr|nummer|numero)|^(vsnr|policy|police)$/ },
  insurer: { match: /insurer|provider|versicherer|gesellschaft|assureur|compagnie/ },
  insurance_type: { match: /type|typ\b|\bart\b|sparte|genre|produit/, unless: /\btrip\b|reise|voyage/ },
  start_date: { match: /start|begin|from|von|debut|effet|inception/ },
  end_date: { match: /\bend\b|expir|until|bis|fin\b|ablauf|echeance/ },
  vehicle_registration: { match: /registration|reg\b|plate|kennzeichen|immatriculation/ },
  'coverage.motor_cover': {
    match: /cover level|level of cover|deckung|umfang|formule|garantie/,
    unless: /\bdebut\b|\bfin\b|date|datum|effet|echeance|start|\bend\b|beginn|ablauf/,
  },
  'coverage.trip_type': { match: /\btrip\b|reiseart|vertragsart/ },
  'coverage.region': { match: /\barea\b|region|territor|geltungsbereich|\bzone\b/ },
  'coverage.health_plan': { match: /\bplan\b|tarif|niveau/ },
};

export const foldHeader = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim();

/** Header words of the column that links each row to its file; checked after the values have taken theirs. */
const FILE_HEADER = /\b(file|datei|fichier|document|dokument|source|quelle|pdf|drive|link|lien)\b/;

/** The file column's header where the sheet has none, in the user's language. */
export const FILE_LABELS: Record<TLanguage, string> = { en: 'Drive file', de: 'Drive-Datei', fr: 'Fichier Drive' };

/**
 * Where each value goes: the first header whose words name it and that no earlier value took (so two
 * values never land in one cell), else a new column headed with its label. Values not read take no new column.
 * With `file`, its text goes under the first free header naming a file (else a new one headed `file.label`),
 * and `fileCol` says where.
 */
export function placeValues(
  headers: string[],
  values: Partial<Record<TReviewKey, string>>,
  file?: { text: string; label: string },
): { row: string[]; newHeaders: string[]; fileCol?: number } {
  const folded = headers.map(foldHeader);
  const taken = new Set<number>();
  const row: string[] = headers.map(() => '');
  const newHeaders: string[] = [];
  for (const key of REVIEW_KEYS) {
    const { match, unless } = FIELD_HEADERS[key];
    const value = values[key];
    let col = folded.findIndex((h, i) => h && !taken.has(i) && match.test(h) && !unless?.test(h));
    if (col < 0) {
      if (value === undefined) continue;
      col = headers.length + newHeaders.length;
      newHeaders.push(REVIEW_LABELS[key]);
    }
    taken.add(col);
    row[col] = value ?? '';
  }
  let fileCol: number | undefined;
  if (file) {
    fileCol = folded.findIndex((h, i) => h && !taken.has(i) && FILE_HEADER.test(h));
    if (fileCol < 0) {
      fileCol = headers.length + newHeaders.length;
      newHeaders.push(file.label);
    }
    row[fileCol] = file.text;
  }
  const out = Array.from({ length: headers.length + newHeaders.length }, (_, i) => row[i] ?? '');
  return fileCol === undefined ? { row: out, newHeaders } : { row: out, newHeaders, fileCol };
}
