/**
 * Letter-spaced words ("D A T E  D ' E F F E T", "P o l i c y   n u m b e r") closed up before fields are looked
 * for. Designers space out headings and labels; a text layer or OCR hands them over one letter at a time, and no
 * label pattern matches them. Where a word gap was wide enough to start a new cell, the words are joined with a
 * space; where it was not, the word boundaries are lost ("DATEOFCOMMENCEMENT"), and such a line is marked so that
 * labels are also looked for with their spaces optional (candidates/document-index.ts).
 */
import { CELL_GAP, type Cell, type Line } from '../reading/lines.js';
import { continuesSpacedLabel } from '../spaced-label.js';
import { LABELS } from './labels.js';
import { fold } from './text.js';

/** A line as the fields side reads it: `closedUp` when letter-spaced words in it were closed up without their gaps. */
export type FieldLine = Line & { closedUp?: boolean };

/** At least four single characters in a row, three of them letters: shorter runs are initials, a grade, a list. */
const MIN_RUN = 4;
const MIN_LETTERS = 3;

const chars = (t: string): number => [...t].length;
const letterCount = (ts: readonly string[]): number => ts.filter((t) => /\p{L}/u.test(t)).length;
const isRun = (ts: readonly string[]): boolean => ts.length >= MIN_RUN && letterCount(ts) >= MIN_LETTERS;

/**
 * A cell of capitals only in which the reader already closed up the longer words ("POLICY N O ."): text-layer.ts
 * joins four or more evenly spaced characters, so the short words of the same label stay spaced.
 */
const halfClosed = (tokens: readonly string[]): boolean =>
  tokens.every((t) => !/\p{Ll}/u.test(t)) && tokens.some((t) => chars(t) >= 4 && /^\p{Lu}+$/u.test(t));

/** A cell's runs of single characters closed up, or null when it has none long enough. */
function closeRuns(text: string): string | null {
  const tokens = text.split(' ');
  const out: string[] = [];
  let closed = false;
  const shortRuns = halfClosed(tokens);
  for (let i = 0; i < tokens.length;) {
    let j = i;
    while (j < tokens.length && chars(tokens[j]!) === 1) j++;
    if (isRun(tokens.slice(i, j)) || (shortRuns && j - i >= 2 && letterCount(tokens.slice(i, j)) >= 2)) {
      out.push(tokens.slice(i, j).join(''));
      closed = true;
      i = j;
    } else out.push(tokens[i++]!);
  }
  return closed ? out.join(' ') : null;
}

/** Each label pattern once, global, for the matches that cross a word boundary. */
const ALL_LABELS = Object.values(LABELS)
  .flat()
  .map((r) => new RegExp(r.source, r.flags.includes('g') ? r.flags : `${r.flags}g`));

/**
 * True when the spaced word `next` goes on with the chain of spaced words before it. A chain ends where the next word
 * starts another column's heading ("K e n n z e i c h e n", "L a u f z e i t"): two long words in capitals
 * (continuesSpacedLabel, which the text layer's reading applies too) where the words so far are a label already and
 * none goes on across into the next ("C E R T I F I C A T E" "N U M B E R" and "I N C E P T I O N" "D A T E" chain).
 */
function continuesChain(chain: readonly string[][], next: readonly string[]): boolean {
  if (continuesSpacedLabel(chain[chain.length - 1]!.join(''), next.join(''))) return true;
  const before = fold(chain.map((ts) => ts.join('')).join(' '));
  const joined = `${before} ${fold(next.join(''))}`;
  const isLabel = ALL_LABELS.some((re) => [...before.matchAll(re)].length > 0);
  const across = ALL_LABELS.some((re) =>
    [...joined.matchAll(re)].some((m) => m.index < before.length && m.index + m[0].length > before.length + 1),
  );
  return !isLabel || across;
}

/** The line with its letter-spaced runs closed up; the same object when it has none. */
export function closeUpLetterSpacing(line: Line): FieldLine {
  if (!/(?:^|\s)\S \S(?:\s|$)/.test(line.text)) return line;
  const tokens = line.cells.map((c) => c.text.split(' '));
  // A cell of single characters only is one spaced-out word when its neighbours are too ("N °" "D E" "C O N T R A T"):
  // a word gap wide enough to start a new cell. Such a chain is one label, its words joined with a space.
  const spacedWord = tokens.map((ts) => ts.length >= 2 && ts.every((t) => chars(t) === 1));
  const cells: Cell[] = [];
  let changed = false;
  let lost = false;
  for (let k = 0; k < line.cells.length;) {
    let j = k;
    while (spacedWord[j] && (j === k || continuesChain(tokens.slice(k, j), tokens[j]!))) j++;
    const chain = tokens.slice(k, j);
    if (j - k >= 2 && isRun(chain.flat())) {
      cells.push({ x: line.cells[k]!.x, text: chain.map((ts) => ts.join('')).join(' ') });
      changed = true;
      k = j;
      continue;
    }
    const cell = line.cells[k]!;
    const closed = closeRuns(cell.text);
    // A run inside one cell may have lost its word gaps ("DATEOFCOMMENCEMENT").
    if (closed !== null) {
      cells.push({ x: cell.x, text: closed });
      changed = true;
      lost = true;
    } else cells.push(cell);
    k++;
  }
  if (!changed) return line;
  return { ...line, text: cells.map((c) => c.text).join(CELL_GAP), cells, ...(lost ? { closedUp: true } : {}) };
}
