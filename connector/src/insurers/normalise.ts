/** Turns an insurer name into a matching key, so spelling, accents and legal forms do not stop a match. */
import { ALL_LANGUAGE_PACKS } from '../../../shared/packs/index.js';

/*
 * The key is for comparing names, never for showing them. Choices, in the order they apply:
 * - Case, accents and ligatures fold away (ß -> ss, æ -> ae, œ -> oe, then NFD minus combining marks).
 * - Punctuation, quotes and symbols become spaces. Runs of single letters join up, so dotted
 *   abbreviations read as one word: "S.A." -> "sa", "V.a.G." -> "vag", "I.A.R.D." -> "iard".
 * - German transliteration folds into the plain vowel: ae -> a, oe -> o, ue -> u, so "Württembergische",
 *   "Wurttembergische" and "Wuerttembergische" share a key. This is applied to every word, whatever the
 *   language ("Mutuelle" -> "mutulle"), which is harmless because both sides of a comparison fold alike.
 * - One trailing "s" goes from words longer than four letters (not "ss"): "Assurances" = "Assurance",
 *   "Versicherungs-AG" = "Versicherung AG". Same reasoning: a key, folded alike on both sides.
 * - Legal forms and a few articles and prepositions are dropped (lists below). Domain words such as
 *   "insurance", "versicherung", "assurance" are KEPT: the exact key should still tell "Allianz" from
 *   "Allianz Versicherung"; the matcher's token containment is what lets "Allianz" find the longer name.
 * - If dropping leaves nothing (a name that is only "Mutuelle" or "AG"), the folded words are kept.
 */

/**
 * Legal-form words and phrases, dropped wherever they appear: each language pack's, plus forms of
 * languages without a pack that EU registers still carry (Italian S.p.A., Dutch N.V. and B.V.).
 * Written plainly; folded at load.
 */
const LEGAL_FORMS = [...ALL_LANGUAGE_PACKS.flatMap((p) => p.legalForms), 'spa', 'nv', 'bv'];

/** Articles and prepositions that carry no identity ("MEDICALE DE FRANCE (LA)"), from the language packs. */
const STOPWORDS = ALL_LANGUAGE_PACKS.flatMap((p) => p.stopWords);

/** German compounds that carry a legal form inside one word ("Versicherungsaktiengesellschaft"). */
const COMPOUND_LEGAL_SUFFIX = 'aktiengesellschaft';

function foldToken(token: string): string {
  let t = token.replace(/ae/g, 'a').replace(/oe/g, 'o').replace(/ue/g, 'u');
  if (t.length > COMPOUND_LEGAL_SUFFIX.length + 2 && t.endsWith(COMPOUND_LEGAL_SUFFIX)) {
    t = t.slice(0, -COMPOUND_LEGAL_SUFFIX.length);
  }
  if (t.length > 4 && t.endsWith('s') && !t.endsWith('ss')) t = t.slice(0, -1);
  return t;
}

/** Lower case, accents and ligatures folded, everything but letters and digits turned into spaces, split. */
function rawWords(name: string): string[] {
  const text = name
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/æ/g, 'ae')
    .replace(/œ/g, 'oe')
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^a-z0-9]+/g, ' ');
  const words = text.split(' ').filter(Boolean);
  // Join runs of single letters: "s a" (from "S.A.") -> "sa". A lone letter stays as it is.
  const joined: string[] = [];
  let run = '';
  for (const w of words) {
    if (w.length === 1 && /[a-z]/.test(w)) {
      run += w;
      continue;
    }
    if (run) joined.push(run);
    run = '';
    joined.push(w);
  }
  if (run) joined.push(run);
  return joined;
}

function foldedWords(name: string): string[] {
  return rawWords(name).map(foldToken);
}

const DROP_PHRASES: string[][] = [...LEGAL_FORMS, ...STOPWORDS]
  .map((p) => foldedWords(p))
  .filter((p) => p.length > 0)
  // Longest first, so "versicherungsverein auf gegenseitigkeit" goes before "auf gegenseitigkeit".
  .sort((a, b) => b.length - a.length);
const DROP_SINGLE = new Set(DROP_PHRASES.filter((p) => p.length === 1).map((p) => p[0] as string));
const DROP_MULTI = DROP_PHRASES.filter((p) => p.length > 1);

function dropLegalForms(words: string[]): string[] {
  const out: string[] = [];
  let i = 0;
  outer: while (i < words.length) {
    for (const phrase of DROP_MULTI) {
      if (phrase.every((p, k) => words[i + k] === p)) {
        i += phrase.length;
        continue outer;
      }
    }
    const w = words[i] as string;
    if (!DROP_SINGLE.has(w)) out.push(w);
    i += 1;
  }
  return out;
}

/**
 * The matching key of an insurer name: lower case, no accents, umlaut transliterations folded, no
 * punctuation, no legal forms or articles, single spaces. Two names with the same key are treated as
 * the same name. Returns '' only for a name with no letters or digits.
 */
export function normaliseInsurerName(name: string): string {
  return nameTokens(name).join(' ');
}

// Provider and insurer names repeat across requests; folding them is the costliest step of
// matching, so results are memoised. Bounded: cleared when full rather than tracking recency.
const MEMO_LIMIT = 50_000;
const memo = new Map<string, readonly string[]>();

/** The words of the matching key, in order (see `normaliseInsurerName`). The array is shared: do not mutate. */
export function nameTokens(name: string): string[] {
  let tokens = memo.get(name);
  if (tokens === undefined) {
    const words = foldedWords(name);
    const kept = dropLegalForms(words);
    tokens = Object.freeze(kept.length > 0 ? kept : words);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(name, tokens);
  }
  return tokens as string[];
}
