/**
 * Letter-spaced labels, as designers set headings and form labels ("D A T E  D ' E F F E T"): each character a
 * run of its own with extra space after it, a wider gap between words. With `wordGap: 'cell'` a word gap is wide
 * enough to read as a new column, with `'space'` as narrow as a letter gap, so the word boundaries are lost.
 */
import { textWidth, type Drawing, type DrawnText } from './drawing.js';

export interface LetterSpacing {
  /** Extra space after each character, in ems. */
  tracking: number;
  wordGap: 'cell' | 'space';
  upperCase: boolean;
}

/**
 * The drawing with its labels (role 'label') letter-spaced. Where the next run on a label's line (its value, the
 * next column) leaves too little room, the label is spaced less; a run right after it (a value after "Label:") and
 * everything right of it on the line move right by what the label grew, as a typesetter's line would.
 */
export function letterSpaceLabels(drawing: Drawing, spacing: LetterSpacing): Drawing {
  return {
    pages: drawing.pages.map((page) => {
      const texts = page.texts.map((t) => ({ ...t }));
      const spreads = new Map<DrawnText, DrawnText[]>();
      for (const t of texts) {
        if (t.role !== 'label') continue;
        const oldEnd = t.x + textWidth(t.text, t.size, t.bold);
        const next = texts.filter((o) => o !== t && o.y === t.y && o.x >= oldEnd - 1).sort((a, b) => a.x - b.x)[0];
        const room = next ? next.x - oldEnd - 1.5 * t.size : Infinity;
        // The tracking that fits the room, if that still reads as letter-spaced; else the line moves right.
        const chars = [...t.text].length;
        const fit = room / (t.size * chars * (wordGapShare(spacing) + 1));
        const tracking = Math.min(spacing.tracking, fit);
        const growth = (r: DrawnText[]): number => r[r.length - 1]!.x + textWidth(r[r.length - 1]!.text, t.size, t.bold) - oldEnd;
        let run = spread(t, tracking >= 0.15 ? { ...spacing, tracking } : spacing);
        // A line pushed past the page's edge would lose text a reader sees on no page: space the label only as much as fits.
        if (next) {
          const push = oldEnd + growth(run) + 1.5 * t.size - next.x;
          const end = Math.max(...texts.filter((o) => o.y === t.y && o.x >= next.x).map((o) => o.x + textWidth(o.text, o.size, o.bold)));
          if (push > 0 && end + push > page.width) run = spread(t, { ...spacing, tracking: Math.max(0, fit) });
        }
        const grown = growth(run);
        if (next && oldEnd + grown + 1.2 * t.size > next.x) {
          const from = next.x;
          const push = oldEnd + grown + 1.5 * t.size - from;
          for (const o of texts) if (o !== t && o.y === t.y && o.x >= from) o.x = Math.round((o.x + push) * 10) / 10;
        }
        spreads.set(t, run);
      }
      return { ...page, texts: texts.flatMap((t) => spreads.get(t) ?? [t]) };
    }),
  };
}

/** How much wider than its tracking a label grows at its word gaps, per character (a rough share, to fit a room). */
const wordGapShare = (s: LetterSpacing): number => (s.wordGap === 'cell' ? 0.5 : 0.1);

function spread(t: DrawnText, s: LetterSpacing): DrawnText[] {
  const text = s.upperCase ? t.text.toUpperCase() : t.text;
  const out: DrawnText[] = [];
  let x = t.x;
  for (const ch of text) {
    if (ch === ' ') {
      x += t.size * (s.wordGap === 'cell' ? 1.6 : s.tracking);
      continue;
    }
    out.push({ ...t, text: ch, x });
    x += textWidth(ch, t.size, t.bold) + t.size * s.tracking;
  }
  return out;
}
