/** Context words of every language pack that the candidate generators look for around a value, as patterns on folded text. */
import { packAlternation, type LanguagePack } from '../../../../../shared/packs/index.js';
import { spacesOptional } from '../text.js';

/** One non-global pattern (for .test) over every pack's words. */
const words = (pick: (p: LanguagePack) => readonly string[]): RegExp => new RegExp(`\\b(?:${packAlternation(pick)})\\b`);
export const NOT_PERIOD = words((p) => p.notPeriodContext);
export const NOT_INSURER = words((p) => p.notInsurerContext);
/** NOT_INSURER with its spaces optional, for a line whose letter-spaced words lost their gaps ("ARRANGEDBY"). */
export const NOT_INSURER_GAPLESS = new RegExp(spacesOptional(NOT_INSURER.source));
export const INSURER_WORDS = words((p) => [...p.insurerWords, ...p.legalForms.filter((f) => f.length >= 2)]);
export const SECONDARY = words((p) => p.secondaryNumberWords);
export const POST_BOX_START = new RegExp(`^(?:${packAlternation((p) => p.postBoxWords)})\\s*\\d`);
export const POST_BOX_END = new RegExp(`(?:^|[^\\p{L}])(?:${packAlternation((p) => p.postBoxWords)})\\s*$`, 'u');
/** An intermediary's cue right before its name (the end of the text before it) or right after it (the start of the text after). */
export const INTERMEDIARY_BEFORE = new RegExp(
  `(?:^|[^\\p{L}])(?:${packAlternation((p) => p.intermediaryWords.before)})\\s*[:\\-–]?\\s*(?:(?:the|der|die|den|le|la|l')\\s*)?$`,
  'u',
);
/** INTERMEDIARY_BEFORE with its spaces optional, for a line whose letter-spaced cue lost its word gaps ("ARRANGEDBY"). */
export const INTERMEDIARY_BEFORE_GAPLESS = new RegExp(spacesOptional(INTERMEDIARY_BEFORE.source), 'u');
export const INTERMEDIARY_AFTER = new RegExp(`^[\\s,;(–-]*(?:${packAlternation((p) => p.intermediaryWords.after)})(?![\\p{L}])`, 'u');
/** Every intermediary cue in a (folded) line, for the names they stand before or after. */
export const INTERMEDIARY_CUE_BEFORE = new RegExp(
  `(?<![\\p{L}])(?:${packAlternation((p) => p.intermediaryWords.before)})\\s*[:\\-–]?\\s*(?:(?:the|der|die|den|le|la|l')\\s+)?(?=\\S)`,
  'gu',
);
export const INTERMEDIARY_CUE_AFTER = new RegExp(`[\\s,;(–-]+(?:${packAlternation((p) => p.intermediaryWords.after)})(?![\\p{L}])`, 'gu');
export const TITLE_WORDS = words((p) => p.documentTitleWords);
export const DEPARTMENT = new RegExp(`^(?:${packAlternation((p) => p.departmentWords)})\\b`);
export const PERSON = new RegExp(`^(?:${packAlternation((p) => p.personTitles)})\\b\\.?\\s`);
/** A name that ends in a legal form ("... AG", "... Limited", "... a. G.") is a company's legal name, not a brand. */
export const LEGAL_FORM_END = new RegExp(
  `\\b(?:${packAlternation((p) => p.legalForms.map((f) => f.replace(/\s+/g, '\\s*')))}|a\\.?\\s?g|s\\.?a|versicherungs-ag)\\.?$`,
);
/** Nothing but legal forms ("Limited", "GmbH & Co. KG"): the tail of a name a line break or OCR's comma cut off, never a name. */
export const LEGAL_FORM_ONLY = new RegExp(
  `^(?:(?:${packAlternation((p) => p.legalForms.map((f) => f.replace(/\s+/g, '\\s*')))}|a\\.?\\s?g|s\\.?a|&|co)\\.?[\\s,]*)+$`,
);
export const COPULAS = new RegExp(
  `^[\\s:;.,|\\-–—=]*(?:(?:${packAlternation((p) => p.copulas)})\\s+)?(?:(?:the|die|der|la|le|l')\\s*)?[\\s:;|]*`,
  'i',
);
/** A cell that is only a period column's heading ("vom", "bis", "Début", "Fin"), per end of the period. */
export const PERIOD_COLUMN = {
  start: new RegExp(`^(?:${packAlternation((p) => p.periodColumnWords.start)})\\s*:?$`),
  end: new RegExp(`^(?:${packAlternation((p) => p.periodColumnWords.end)})\\s*:?$`),
};
/** Words between a date's label and the date in a sentence ("starts on", "beginnt am", "prend effet le"). */
export const DATE_LEAD_IN = new RegExp(`^\\s*(?:(?:${packAlternation((p) => p.dateLeadIns)})\\s+)+`);
export const CONNECTOR = new RegExp(
  `^\\s*(?:inclus\\s*)?(?:${packAlternation((p) => p.periodConnectors)}|-|–|—)\\s*(?:(?:the|le|den)\\s+)?$`,
);
