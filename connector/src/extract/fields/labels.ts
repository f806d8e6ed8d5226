/** Label vocabularies (every language pack's), merged for the candidate generator (candidates/). */
import { ALL_LANGUAGE_PACKS, LABEL_KINDS, packAlternation, type TLabelKind } from '../../../../shared/packs/index.js';

export type LabelKind = TLabelKind;

/**
 * Label patterns, matched on folded text (lower case, no accents): every language pack's, in registry
 * order. One list for all languages: a German document may say "Policen-Nr." and an English one from a
 * French insurer "N° de police". The packs include OCR variants of "N°" ("N*", "Nº", "No").
 */
export const LABELS: Record<LabelKind, RegExp[]> = Object.fromEntries(
  LABEL_KINDS.map((k) => [k, ALL_LANGUAGE_PACKS.flatMap((p) => p.labels[k])]),
) as Record<LabelKind, RegExp[]>;

/** Words around a number that say it is not the policy number (customer ids, phone, company register...), from every pack. */
export const NOT_POLICY_CONTEXT = new RegExp(`\\b(?:${packAlternation((p) => p.notPolicyContext)})\\b`);
