/** Insurer candidates: names after an insurer label and name-like segments of any line, each looked up in the register. */
import { distance } from 'fastest-levenshtein';
import { packAlternation, type TCountry } from '../../../../../shared/packs/index.js';
import { nameTokens } from '../../../insurers/normalise.js';
import { CELL_GAP } from '../../reading/lines.js';
import { LABELS } from '../labels.js';
import { fold } from '../text.js';
import type { CandidateContext, FieldCandidate } from './candidate.js';
import { lastCell, type DocumentIndex, type Span } from './document-index.js';
import { labelRelations, positionFeatures, type Relations } from './features.js';
import {
  DEPARTMENT,
  INSURER_WORDS,
  INTERMEDIARY_AFTER,
  INTERMEDIARY_BEFORE,
  INTERMEDIARY_BEFORE_GAPLESS,
  INTERMEDIARY_CUE_AFTER,
  INTERMEDIARY_CUE_BEFORE,
  LEGAL_FORM_END,
  LEGAL_FORM_ONLY,
  NOT_INSURER,
  NOT_INSURER_GAPLESS,
  PERSON,
  TITLE_WORDS,
} from './vocabulary.js';

/** A full stop ending a sentence, not an abbreviation's ("a. G.", "S.A. Niederlassung"). */
const SENTENCE_END = '(?<![\\s.][A-Za-z])(?<!^[A-Za-z])(?<!\\bCo)\\.\\s+(?=[A-Z])';

// OCR reads a footer's "·" as a dash glued to the word before ("Versicherung AG- Sitz der Gesellschaft"): a dash
// followed by a space and a capital is a separator too (a hyphenated name has no space; "Kranken- und" no capital).
const GLUED_DASH = '(?<=\\S)[-–—]\\s+(?=[A-ZÄÖÜÉ])';
const NAME_END = new RegExp(`${CELL_GAP}|\\s[·•|]\\s|\\s[-–—]\\s|${GLUED_DASH}|,\\s|\\s\\(|;\\s|${SENTENCE_END}`);
// A colon ends a label ("Ihr Vermittler: ..."), never a name.
const NAME_SPLIT = new RegExp(`\\s[·•|]\\s|\\s[-–—]\\s|${GLUED_DASH}|,\\s|;\\s|:\\s|${SENTENCE_END}`);
const NAME_END_ALL = new RegExp(NAME_END.source, 'g');
/** A parenthesis inside a legal name: "Admiral Insurance (Gibraltar) Limited", "AXA Insurance (UK) plc". */
const PAREN_IN_NAME = new RegExp(`^\\s\\([^()]{1,30}\\)\\s+(?:${packAlternation((p) => [...p.legalForms, ...p.insurerWords])})\\b`, 'i');

/** The text up to the first place a name ends, passing over a parenthesis the legal name itself holds. */
function untilNameEnd(t: string): string {
  NAME_END_ALL.lastIndex = 0;
  for (let m = NAME_END_ALL.exec(t); m; m = NAME_END_ALL.exec(t)) {
    if (/^\s\($/.test(m[0]) && PAREN_IN_NAME.test(t.slice(m.index))) continue;
    return t.slice(0, m.index);
  }
  return t;
}
const LEADING_COPULA = new RegExp(`^(?:${packAlternation((p) => p.copulas)})\\s+`, 'i');
/** A name a label matches: any other field's label inside it, or nothing but an insurer label. */
const NAME_IS_LABEL = [
  new RegExp(`^(?:${LABELS.insurer.map((re) => `(?:${re.source})`).join('|')})$`),
  new RegExp(
    Object.entries(LABELS)
      .flatMap(([kind, res]) => (kind === 'insurer' ? [] : res.map((re) => `(?:${re.source})`)))
      .join('|'),
  ),
];

/** Words that join a name's words ("Royal & Sun Alliance", "Caisse d'Épargne", "Versicherungsverein auf Gegenseitigkeit"). */
const JOINER = /^(?:&|\+|and|und|et|of|de|du|des|la|le|der|die|für|fur|auf|d'\S*|l'\S*)$/i;
const NAME_WORD = (w: string): boolean => /^[\p{Lu}\d]/u.test(w) || JOINER.test(w) || /^\p{Ll}\.\p{Lu}\.?$/u.test(w);
/** A name with its trailing joiners dropped, cut after its legal form when one is printed ("X Ltd and underwritten ..."). */
function trimName(words: string[]): string {
  while (words.length > 0 && JOINER.test(words[words.length - 1]!)) words.pop();
  while (words.length > 0 && JOINER.test(words[0]!)) words.shift();
  for (let k = words.length; k > 0; k--)
    if (LEGAL_FORM_END.test(fold(words.slice(0, k).join(' ')).replace(/[,.]+$/, ''))) return words.slice(0, k).join(' ');
  return words.join(' ');
}
/** The capitalised run a text starts with: the name after a cue, before the sentence goes on. */
function leadingName(text: string): string {
  const words = text.trim().split(/\s+/);
  const k = words.findIndex((w) => !NAME_WORD(w));
  return trimName(k < 0 ? words : words.slice(0, k));
}
/** The capitalised run a text ends with: the name before a cue ("... von X Makler GmbH vermittelt"). */
function trailingName(text: string): string {
  const words = text.trim().split(/\s+/);
  let k = words.length;
  while (k > 0 && NAME_WORD(words[k - 1]!)) k--;
  return trimName(words.slice(k));
}

/** The folded text before a span in its cell and the cell to its left, from the last insurer label before it. */
function textBefore(doc: DocumentIndex, span: Span): string {
  let from = doc.spans[span.line]![Math.max(0, span.cell - 1)]?.start ?? 0;
  const label = doc.hits[span.line]!.filter((h) => h.kind === 'insurer' && h.end <= span.start).pop();
  if (label && label.end > from) from = label.end;
  return doc.folded[span.line]!.slice(from, span.start);
}

/** The folded text of the cell right above a span's, in its column, when it is a short heading (four words at most). */
function headingAbove(doc: DocumentIndex, span: Span): string | undefined {
  const i = span.line - 1;
  if (i < 0 || (doc.lines[i]!.page ?? 1) !== (doc.lines[span.line]!.page ?? 1)) return undefined;
  const x = doc.spans[span.line]![span.cell]?.x ?? 0;
  const above = doc.spans[i]!;
  let k = 0;
  above.forEach((c, j) => {
    if (Math.abs(c.x - x) < Math.abs(above[k]!.x - x)) k = j;
  });
  const c = above[k];
  if (!c || Math.abs(c.x - x) > 40) return undefined;
  const text = doc.folded[i]!.slice(c.start, c.end).trim();
  return text.split(/\s+/).length <= 4 ? text.replace(/[\s:]+$/, '') : undefined;
}

/** Cleans a piece of text into the name it starts with: up to an address, a register note or a sentence's end. */
function nameFrom(raw: string): string {
  let t = raw.replace(/^[\s:;.,|\-–—=]+/, '');
  t = untilNameEnd(t);
  // A lower-case article is the sentence's ("bei der Allianz"); a capital one may be the name's own ("La Mutuelle
  // Générale", "The Royal London ..."), and the legal name is what is printed.
  t = t.replace(/^(?:the|der|die|das|la|le|les|l')\s+/, '');
  return t.replace(/[.:;,]+$/, '').trim();
}

/**
 * OCR's misreadings of legal forms, repaired in OCR'd text only. The "I" of "I.A.R.D." (French company names) read as
 * "L", "l", "1" or "|" (not \b before it: "|" is no word character, so "\b|" never matches after a space); a German
 * mutual's "a.G." glued to the word before it where a photo's narrow word space was lost ("Versicherungsvereina.G");
 * "plc" and "Ltd" ending a name read as the words "pic" and "Lid" (an "l" and a "t" whose strokes ran together).
 */
function repairOcrName(printed: string): string {
  return printed
    .replace(/(?<![\p{L}\d])[Ll1|]\.?\s?A\.?\s?R\.?\s?D\b\.?/gu, 'I.A.R.D.')
    .replace(/(?<=\p{Ll}{3})a\.\s?G\b\.?/gu, ' a.G.')
    .replace(/(?<=\p{L}\s)pic$/u, 'plc')
    .replace(/(?<=\p{L}\s)Lid(\.?)$/u, 'Ltd$1');
}

export function insurerCandidates(doc: DocumentIndex, ctx: CandidateContext): FieldCandidate[] {
  const out: FieldCandidate[] = [];
  const seen = new Set<string>();
  const matched = new Map<string, { name: string; score: number; country: TCountry } | null>();
  const add = (printed: string, span: Span, how: Relations): void => {
    const name = doc.lines[span.line]?.ocr ? repairOcrName(printed) : printed;
    const words = name.split(/\s+/).filter(Boolean);
    if (name.length < 3 || words.length > 9 || !/[A-Za-z]{2}/.test(name)) return;
    const key = nameTokens(name).join(' ');
    if (!key || seen.has(`${key}@${span.line}:${span.start}`)) return;
    seen.add(`${key}@${span.line}:${span.start}`);
    const lowerShare = words.filter((w) => /^[a-zà-ÿ]/.test(w)).length / words.length;
    // Sentence pieces and addresses are never register names: no look-up (the register's fuzzy search is the cost here).
    const folded = fold(name);
    if (LEGAL_FORM_ONLY.test(folded)) return;
    const orgWord = INSURER_WORDS.test(folded);
    const legalForm = LEGAL_FORM_END.test(folded.slice(-40).replace(/[,.]+$/, ''));
    const namely = how.from_label || orgWord || legalForm || (doc.pagePos[span.line]![0] < 3 && (doc.lines[span.line]!.page ?? 1) === 1);
    let best = lowerShare > 0.5 || /\d/.test(name) || !namely ? null : matched.get(name);
    if (best === undefined) {
      best = null;
      for (const c of ctx.countries) {
        const m = ctx.matcher(c, name);
        if (m && (!best || m.score > best.score)) best = { ...m, country: c };
      }
      matched.set(name, best);
    }
    // Only a cue right before the name counts ("regulated by X"): register notes share the footer line with the legal
    // name. An insurer label between the cue and the name is the name's ("arranged by X and underwritten by Y").
    const before = textBefore(doc, span);
    // Where letter-spaced words lost their gaps, a cue is read with its spaces optional too ("arrangedby").
    const cue = (re: RegExp, gapless: RegExp): boolean => re.test(before) || (doc.gapless[span.line]! && gapless.test(before));
    const f: Relations = {
      bias: 1,
      ...how,
      ...labelRelations(doc, span, ['insurer']),
      ...positionFeatures(doc, span.line),
      ...(cue(NOT_INSURER, NOT_INSURER_GAPLESS) ? { distract_near: 1 } : {}),
    };
    const at = doc.lines[span.line]!.text.indexOf(printed, span.start);
    const after = at < 0 ? '' : doc.folded[span.line]!.slice(at + printed.length, at + printed.length + 60);
    // A form field named for the broker ("vermittler", "courtier") holds the intermediary's name, as does a column
    // headed by one in a label row.
    const field = doc.fieldOf(span);
    const heading = headingAbove(doc, span);
    if (
      cue(INTERMEDIARY_BEFORE, INTERMEDIARY_BEFORE_GAPLESS) ||
      INTERMEDIARY_AFTER.test(after) ||
      (field && INTERMEDIARY_BEFORE.test(field)) ||
      (heading && INTERMEDIARY_BEFORE.test(heading))
    )
      f.intermediary = 1;
    if (orgWord) f.org_word = 1;
    const lower = words.filter((w) => /^[a-zà-ÿ]/.test(w) && !/^(?:of|de|du|des|la|le|und|der|fur|für|et|and|a\.?|d')$/i.test(w)).length;
    f.lowercase = lower / words.length;
    f.words = Math.min(8, words.length) / 8;
    if (/\d/.test(name)) f.digits = 1;
    if (legalForm) f.legal_form = 1;
    if (PERSON.test(folded)) f.person = 1;
    // "Pour l'assureur, le Service Assistance": a department signs for the carrier; it is not the carrier.
    if (DEPARTMENT.test(folded)) f.department = 1;
    if (TITLE_WORDS.test(folded)) f.title_word = 1;
    // Text a label matches ("N° de contrat", "Versicherungsnummer") is a label, not a name.
    if (NAME_IS_LABEL.some((re) => re.test(folded))) f.has_label = 1;
    if (best && best.score >= 0.97) f.register_exact = 1;
    else if (best && best.score >= 0.85) f.register_close = best.score;
    // The printed name is the answer; an alias (a brand the register knows) stands for the register's legal name.
    // OCR's punctuation is not the print's ("Generali-Deutschland" for "Generali Deutschland"): an OCR'd name whose
    // words are a register name's exactly takes the register's spelling.
    const ocrSpelling = !!best && doc.lines[span.line]?.ocr === true && best.name !== name && nameTokens(best.name).join(' ') === key;
    const value = best && ((best.score >= 0.97 && best.score < 1) || ocrSpelling) ? best.name : name;
    out.push({
      field: 'insurer',
      value,
      key: nameTokens(value).join(' '),
      line: span.line,
      features: f,
      ...(best && best.score >= 0.85 ? { registerCountry: best.country } : {}),
    });
  };
  doc.lines.forEach((line, i) => {
    if (doc.chrome[i]) return;
    const spans = doc.spans[i]!;
    // After an insurer label: the rest of its cell, the next cell, the cell below.
    for (const h of doc.hits[i]!.filter((x) => x.kind === 'insurer')) {
      const cs = spans[h.cell]!;
      const end = lastCell(h);
      const ce = spans[end]!;
      const rest = line.text
        .slice(h.end, ce.end)
        .replace(/^[\s:;.,|\-–—=]+/, '')
        .replace(LEADING_COPULA, '');
      const start = ce.end - rest.length;
      if (rest.trim()) add(nameFrom(rest), { line: i, cell: end, start, end: ce.end }, { from_label: 1 });
      const next = spans[end + 1];
      if (next && !rest.trim())
        add(
          nameFrom(line.text.slice(next.start, next.end)),
          { line: i, cell: end + 1, start: next.start, end: next.end },
          { from_label: 1 },
        );
      // A label over its value (forms with a label row): the cell below nearest in x.
      const below = doc.spans[i + 1];
      if (below && !rest.trim()) {
        let k = 0;
        below.forEach((c, j) => {
          if (Math.abs(c.x - cs.x) < Math.abs(below[k]!.x - cs.x)) k = j;
        });
        const c = below[k]!;
        add(
          nameFrom(doc.lines[i + 1]!.text.slice(c.start, c.end)),
          { line: i + 1, cell: k, start: c.start, end: c.end },
          { from_label: 1 },
        );
      }
    }
    // The name an intermediary cue stands before or after ("arranged by X and ...", "X acts as an intermediary").
    for (const m of doc.folded[i]!.matchAll(INTERMEDIARY_CUE_BEFORE)) {
      const from = m.index + m[0].length;
      // A name starts with a capital, which only the printed text shows.
      if (!/^\p{Lu}/u.test(line.text.slice(from))) continue;
      const name = leadingName(nameFrom(line.text.slice(from)));
      const start = name ? line.text.indexOf(name, from) : -1;
      if (start >= 0) add(name, { line: i, cell: doc.cellOf(i, start), start, end: start + name.length }, {});
    }
    for (const m of doc.folded[i]!.matchAll(INTERMEDIARY_CUE_AFTER)) {
      const text = line.text.slice(0, m.index);
      const name = trailingName(text.split(NAME_SPLIT).pop() ?? '');
      const start = text.lastIndexOf(name);
      if (name && start >= 0) add(name, { line: i, cell: doc.cellOf(i, start), start, end: start + name.length }, {});
    }
    // Every segment of the line that could be a name: letterheads, footers, signature lines, table cells.
    spans.forEach((cs, cell) => {
      const text = line.text.slice(cs.start, cs.end);
      const parts = text.split(NAME_SPLIT);
      let offset = cs.start;
      for (const part of parts) {
        const at = line.text.indexOf(part, offset);
        offset = at + part.length;
        // What follows an insurer label is the label's candidate; what precedes it is a name only up to its last
        // capitalised word ("Acme Car is a trading name of ...").
        const label = doc.hits[i]!.find((h) => h.kind === 'insurer' && h.start >= at && h.start < at + part.length);
        const piece = label ? line.text.slice(at, label.start).replace(/(?:\s+[\p{Ll}'’]+)+\s*$/u, '') : part;
        if (label && !/\p{Lu}/u.test(piece)) continue;
        const name = nameFrom(piece);
        if (!name) continue;
        const folded = fold(name);
        const looksLikeName = INSURER_WORDS.test(folded) || (doc.pagePos[i]![0] < 3 && (line.page ?? 1) === 1);
        if (!looksLikeName) continue;
        add(name, { line: i, cell, start: at, end: at + part.length }, {});
      }
    });
  });
  sameNameReadTwice(out, doc);
  // A name the document calls an intermediary once is one wherever it is printed (the broker's letterhead).
  const intermediaries = new Set(out.filter((c) => c.features.intermediary).map((c) => c.key));
  for (const c of out) if (intermediaries.has(c.key)) c.features.intermediary = 1;
  // Repeats: how many lines mention the name (a brand and its legal name both recur in the footer).
  const plain = doc.folded.map((l) => l.replace(/[^a-z0-9 ]/g, ''));
  const counts = new Map<string, number>();
  for (const c of out) {
    const needle = fold(c.value).replace(/[^a-z0-9 ]/g, '');
    const count = counts.get(needle) ?? (needle.length >= 3 ? plain.filter((l) => l.includes(needle)).length : 1);
    counts.set(needle, count);
    c.features.repeat = Math.min(3, Math.log2(Math.max(1, count)));
  }
  // A brand and the legal name that extends it ("ACME" / "ACME Versicherung AG"): the longer one is the carrier's name.
  const keys = [...new Set(out.map((c) => c.key))];
  const keyWords = new Map(keys.map((k) => [k, k.split(' ')]));
  for (const c of out) {
    const mine = c.key.split(' ');
    const extendsOther = keys.some((k) => k !== c.key && keyWords.get(k)!.every((w) => mine.includes(w)));
    const extendedBy = keys.some((k) => k !== c.key && mine.every((w) => keyWords.get(k)!.includes(w)));
    if (extendsOther) c.features.extends_other = 1;
    // The tail of a longer name ("Association Limited" of "... Provident Association Limited"): a line broken inside a name.
    if (keys.some((k) => k !== c.key && k.endsWith(` ${c.key}`))) c.features.truncated = 1;
    if (extendedBy) c.features.extended_by = 1;
    // A brand whose legal name is printed too: the README of the outside documents and real forms agree that the
    // carrier is named by its legal name, so the brand alone is a weaker answer than the name it starts.
    if (out.some((o) => o.key !== c.key && o.features.legal_form && o.key.startsWith(`${c.key} `))) c.features.brand_of_legal = 1;
  }
  return out;
}

/** Register evidence of a candidate: 1 for an exact (or alias) hit, the similarity for a close one, else 0. */
const registerScore = (c: FieldCandidate): number => c.features.register_exact ?? c.features.register_close ?? 0;

/**
 * OCR reads one name differently in two places ("Allianz Versicherungs-AG" in the signature, "Allanz
 * Versicherungs-AG" in the footer). An OCR reading a letter or two away from another reading of the page that
 * the register knows better (or that a text layer printed) is that name, misread: it takes the better reading's
 * value and register evidence. Readings the register knows equally well are left apart (two real companies).
 */
function sameNameReadTwice(out: FieldCandidate[], doc: DocumentIndex): void {
  for (const c of out) {
    if (!doc.lines[c.line]?.ocr || c.key.length < 6) continue;
    const words = c.key.split(' ').length;
    let better: FieldCandidate | undefined;
    for (const o of out) {
      if (o.key === c.key || o.key.split(' ').length !== words) continue;
      const gain = registerScore(o) - registerScore(c) + (doc.lines[o.line]?.ocr ? 0 : 0.5);
      if (gain <= 0 || (better && registerScore(o) <= registerScore(better))) continue;
      const d = distance(o.key, c.key);
      if (d > 0 && d <= Math.min(2, Math.floor(c.key.length / 8))) better = o;
    }
    if (!better) continue;
    c.value = better.value;
    c.key = better.key;
    delete c.features.register_exact;
    delete c.features.register_close;
    if (better.features.register_exact) c.features.register_exact = better.features.register_exact;
    if (better.features.register_close) c.features.register_close = better.features.register_close;
    if (better.registerCountry) c.registerCountry = better.registerCountry;
  }
}
