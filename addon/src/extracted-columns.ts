/** Which column of the active sheet each extracted value goes into: by the header's words, one value per column. */
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

/**
 * Where each value goes: the first header whose words name it and that no earlier value took (so two
 * values never land in one cell), else a new column headed with its label. Values not read take no new column.
 */
export function placeValues(headers: string[], values: Partial<Record<TReviewKey, string>>): { row: string[]; newHeaders: string[] } {
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
  return { row: Array.from({ length: headers.length + newHeaders.length }, (_, i) => row[i] ?? ''), newHeaders };
}
