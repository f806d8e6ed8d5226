/**
 * Whether a text layer can be trusted: text a font's missing or wrong character map turned to garbage reads
 * as characters no document prints (control codes, the private-use area), as words of no language the packs
 * know, or as letter pairs those languages hardly use. Judged per font, from the text alone: microseconds a
 * page. What the text cannot settle is left `doubtful`, for a quick OCR of a crop to decide (read-document.ts).
 */
import { ALL_LANGUAGE_PACKS } from '../../../../shared/packs/languages/index.js';
import type { LanguagePack } from '../../../../shared/packs/types.js';

export type TextVerdict = 'trusted' | 'broken' | 'doubtful';

export interface TextJudgement {
  verdict: TextVerdict;
  /** Letters and digits judged. */
  chars: number;
  /** Why, for logs and tests. */
  reason: string;
  /** True when the characters themselves settle it (codes no document prints), not the words. */
  byCharacters?: boolean;
}

/** Fewer letters than this say too little about a font to judge it: such text is kept as it is. */
export const MIN_LETTERS = 12;

/** Lower case, accents off: the form the vocabulary is kept in. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

interface Model {
  words: Set<string>;
  /** log P(b | a) over letter pairs of the vocabulary, with word starts and ends as '^' and '$'. */
  pairs: Map<string, number>;
  /** The log probability a pair never seen is given. */
  unseen: number;
}

let model: Model | null = null;

/**
 * Every word of three or more letters in the language packs (labels, vocabularies, month names, the add-on's
 * texts), and the letter-pair statistics of those words. Built once per thread, a few milliseconds.
 */
function vocabulary(): Model {
  if (model) return model;
  const words = new Set<string>();
  const collect = (v: unknown, depth: number): void => {
    if (depth > 8 || v === null || v === undefined) return;
    if (typeof v === 'string') {
      for (const w of fold(v).match(/\p{L}{3,}/gu) ?? []) words.add(w);
    } else if (v instanceof RegExp) {
      // A label's pattern: its literal words, without the escapes (\w, \s) read as letters.
      collect(v.source.replace(/\\[a-zA-Z]/g, ' '), depth + 1);
    } else if (Array.isArray(v)) {
      for (const x of v) collect(x, depth + 1);
    } else if (typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        // Keys of the month tables and the like are words too ("maerz").
        if (/^\p{L}{3,}$/u.test(k) && !/[A-Z]/.test(k.slice(1))) words.add(fold(k));
        collect(x, depth + 1);
      }
    }
  };
  for (const pack of ALL_LANGUAGE_PACKS as readonly LanguagePack[]) collect(pack, 0);
  const counts = new Map<string, number>();
  const firsts = new Map<string, number>();
  for (const w of words) {
    const s = `^${w}$`;
    for (let i = 0; i + 1 < s.length; i++) {
      const pair = s.slice(i, i + 2);
      counts.set(pair, (counts.get(pair) ?? 0) + 1);
      firsts.set(s[i]!, (firsts.get(s[i]!) ?? 0) + 1);
    }
  }
  const pairs = new Map<string, number>();
  for (const [pair, n] of counts) pairs.set(pair, Math.log(n / firsts.get(pair[0]!)!));
  model = { words, pairs, unseen: Math.log(0.5 / Math.max(...firsts.values())) };
  return model;
}

/** Characters no printed document means: control codes, the private-use areas, U+FFFD, unassigned code points. */
const NONSENSE = /(?![\t\n\r\f\v])[\p{Cc}\p{Co}\p{Cn}\p{Cs}\uFFFD]/gu;
const WHITE_SPACE = /\s/gu;
const LETTER = /\p{L}/gu;

/**
 * Judges the text one font shows on a page. Broken when more than 5% of its characters are nonsense, or
 * when its words are neither the packs' words nor made of their letter pairs; trusted when enough of its
 * words are known or its letter pairs read as a language; doubtful in between, and for text of symbols and
 * letters run together that has few words to go by.
 */
export function judgeText(texts: readonly string[]): TextJudgement {
  const { words, pairs, unseen } = vocabulary();
  const all = texts.join(' ');
  // White space is not judged: \s holds none of the control codes counted as nonsense but tab and line ends.
  const chars = all.length - (all.match(WHITE_SPACE) ?? []).length;
  const nonsense = (all.match(NONSENSE) ?? []).length;
  const letters = (all.match(LETTER) ?? []).length;
  if (chars > 0 && nonsense / chars > 0.05)
    return { verdict: 'broken', chars, reason: `${nonsense} of ${chars} characters are control or private-use codes`, byCharacters: true };
  const tokens = texts.flatMap((t) => fold(t).split(/\s+/)).filter((t) => t.length > 0);
  // A text layer of glyph ids or of a producer's private codes reads as punctuation, or as letters glued to
  // symbols ("3ROLF\\", "&HUW"); leaders and rules ("......", "____") are a document's own and not counted.
  let symbols = 0;
  let glued = 0;
  for (const t of tokens) {
    if (/^(.)\1+$/u.test(t)) continue;
    symbols += (t.match(/[^\p{L}\p{N}.,:;'’\-/()&+@]/gu) ?? []).length;
    if (/\p{L}[^\p{L}\p{N}.,:;'’\-/()&+@]+\p{L}|^[^\p{L}\p{N}(]+\p{L}{2}/u.test(t)) glued++;
  }
  if (chars >= MIN_LETTERS && symbols / chars > 0.25)
    return { verdict: 'broken', chars, reason: `${symbols} of ${chars} characters are symbols`, byCharacters: true };
  if (letters < MIN_LETTERS) {
    // Numbers, dates and amounts use a few separators; a producer's codes shown as characters use every one.
    const marks = [...texts.join(' ').replace(/(\S)\1{2,}/gu, ' ')].filter((ch) => !/[\p{L}\p{N}\s]/u.test(ch));
    if (chars >= MIN_LETTERS && marks.length / chars > 0.4 && new Set(marks).size >= 6) {
      const reason = `${marks.length} of ${chars} characters are punctuation of ${new Set(marks).size} kinds`;
      return { verdict: 'broken', chars, reason, byCharacters: true };
    }
    return { verdict: 'trusted', chars, reason: `${letters} letters: too few to judge` };
  }

  const found = tokens.flatMap((t) => t.match(/\p{L}{3,}/gu) ?? []);
  const known = found.filter((w) => words.has(w)).length;
  let logp = 0;
  let n = 0;
  for (const w of found) {
    const s = `^${w}$`;
    for (let i = 0; i + 1 < s.length; i++) {
      logp += pairs.get(s.slice(i, i + 2)) ?? unseen;
      n++;
    }
  }
  const pairScore = n ? logp / n : 0;
  const knownShare = found.length ? known / found.length : 0;
  const gluedShare = glued / Math.max(1, tokens.filter((t) => /\p{L}/u.test(t)).length);
  const reason = `${known}/${found.length} known words, letter pairs ${pairScore.toFixed(2)}, ${glued} tokens glued to symbols`;
  if (gluedShare > 0.3) return { verdict: 'broken', chars, reason };
  if (found.length >= 6 && knownShare >= 0.15 && pairScore > PAIRS_BROKEN) return { verdict: 'trusted', chars, reason };
  if (pairScore > PAIRS_TRUSTED && gluedShare < 0.1) return { verdict: 'trusted', chars, reason };
  if (found.length >= 6 && knownShare < 0.05 && pairScore < PAIRS_BROKEN) return { verdict: 'broken', chars, reason };
  if (found.length >= 3 && known === 0 && pairScore < PAIRS_NONSENSE) return { verdict: 'broken', chars, reason };
  return { verdict: 'doubtful', chars, reason };
}

/** Mean log letter-pair probability above which text reads as one of the packs' languages. */
const PAIRS_TRUSTED = -2.9;
/** Below this, it reads as no language. */
const PAIRS_BROKEN = -3.3;
/** Below this, a few words are enough to call it no language. */
const PAIRS_NONSENSE = -3.8;

/** A text item as judged here: its text and its font (text-layer.ts's PlacedItem is one). */
export interface FontItem {
  text: string;
  font: string;
}

export interface LayerJudgement<T extends FontItem> {
  /** The items that may be read: those of fonts not judged broken. */
  kept: T[];
  /** True when fonts judged broken carried enough text that the page must be read by OCR instead. */
  unreadable: boolean;
  /** Per font judged other than trusted: its verdict after any crop check, and why. */
  notes: string[];
}

/** Text a broken font must carry, in items of three or more characters, for the page to go to OCR; less (bullets, a dingbat) is dropped. */
const BROKEN_CHARS_FOR_OCR = 6;

/**
 * Judges a page's text layer font by font. A font left `doubtful` by its text is settled by `agrees` (a quick
 * OCR of a crop of its text: true when OCR reads what the layer says, false when not, null when OCR read
 * nothing, which counts as not), and only then; a font `broken` by its words is confirmed the same way
 * before a page is sent to OCR for it. A broken font's items are never kept.
 */
export async function judgeLayer<T extends FontItem>(
  items: readonly T[],
  agrees: (items: T[]) => Promise<boolean | null>,
): Promise<LayerJudgement<T>> {
  const byFont = new Map<string, T[]>();
  for (const item of items) (byFont.get(item.font) ?? byFont.set(item.font, []).get(item.font)!).push(item);
  const broken = new Set<string>();
  const notes: string[] = [];
  for (const [font, fontItems] of byFont) {
    const j = judgeText(fontItems.map((i) => i.text));
    if (j.verdict === 'trusted') continue;
    let verdict: TextVerdict = j.verdict;
    // Nonsense characters settle it; words alone are checked against what the page shows.
    if (!j.byCharacters) verdict = (await agrees(fontItems)) ? 'trusted' : 'broken';
    notes.push(`${font}: ${verdict} (${j.reason})`);
    if (verdict === 'broken') broken.add(font);
  }
  if (broken.size === 0) return { kept: [...items], unreadable: false, notes };
  const brokenChars = items
    .filter((i) => broken.has(i.font))
    .reduce((n, i) => {
      const len = i.text.replace(/\s+/g, '').length;
      return n + (len >= 3 ? len : 0);
    }, 0);
  return { kept: items.filter((i) => !broken.has(i.font)), unreadable: brokenChars >= BROKEN_CHARS_FOR_OCR, notes };
}
