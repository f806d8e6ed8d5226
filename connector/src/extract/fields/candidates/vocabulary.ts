/** Context words of every language pack that the candidate generators look for around a value, as patterns on folded text. */
import { packAlternation, type LanguagePack } from '../../../../../shared/packs/index.js';

/** One non-global pattern (for .test) over every pack's words. */
const words = (pick: (p: LanguagePack) => readonly string[]): RegExp => new RegExp(`\\b(?:${packAlternation(pick)})\\b`);
export const NOT_PERIOD = words((p) => p.notPeriodContext);
export const NOT_INSURER = words((p) => p.notInsurerContext);
export const INSURER_WORDS = words((p) => [...p.insurerWords, ...p.legalForms.filter((f) => f.length >= 2)]);
export const SECONDARY = words((p) => p.secondaryNumberWords);
export const TITLE_WORDS = words((p) => p.documentTitleWords);
export const DEPARTMENT = new RegExp(`^(?:${packAlternation((p) => p.departmentWords)})\\b`);
export const PERSON = new RegExp(`^(?:${packAlternation((p) => p.personTitles)})\\b\\.?\\s`);
/** A name that ends in a legal form ("... AG", "... Limited", "... a. G.") is a company's legal name, not a brand. */
export const LEGAL_FORM_END = new RegExp(
  `\\b(?:${packAlternation((p) => p.legalForms.map((f) => f.replace(/\s+/g, '\\s*')))}|a\\.?\\s?g|s\\.?a|versicherungs-ag)\\.?$`,
);
export const COPULAS = new RegExp(
  `^[\\s:;.,|\\-–—=]*(?:(?:${packAlternation((p) => p.copulas)})\\s+)?(?:(?:the|die|der|la|le|l')\\s*)?[\\s:;|]*`,
  'i',
);
export const CONNECTOR = new RegExp(
  `^\\s*(?:inclus\\s*)?(?:${packAlternation((p) => p.periodConnectors)}|-|–|—)\\s*(?:(?:the|le|den)\\s+)?$`,
);
