/** The calibration table of the extraction evals: of the values returned in each confidence band, how many were right. */

/** Confidence bands: [low, high). The last band's 1.01 takes in a confidence of exactly 1. */
export const BANDS: Array<[number, number]> = [
  [0, 0.5],
  [0.5, 0.7],
  [0.7, 0.9],
  [0.9, 0.97],
  [0.97, 1.01],
];

/** One value scored: right or not, and its confidence (undefined when nothing was returned, which no band counts). */
export interface Scored {
  ok: boolean;
  confidence?: number;
}

export interface BandRow {
  band: string;
  n: number;
  right: number;
  /** Percent right; null for an empty band. */
  accuracy: number | null;
}

const rate = (xs: Scored[]): { right: number; n: number; accuracy: number | null } => {
  const right = xs.filter((o) => o.ok).length;
  return { right, n: xs.length, accuracy: xs.length ? (100 * right) / xs.length : null };
};

/** One row per band, then the claim the review rule rests on: values at >= 0.9 (target 98% right). */
export function calibration(xs: Scored[]): BandRow[] {
  const present = xs.filter((o) => o.confidence !== undefined);
  const bands = BANDS.map(([lo, hi]) => {
    const r = rate(present.filter((o) => o.confidence! >= lo && o.confidence! < hi));
    return { band: hi > 1 ? `>=${lo}` : `${lo}-${hi}`, ...r };
  });
  return [...bands, { band: '>=0.9 (target 98%)', ...rate(present.filter((o) => o.confidence! >= 0.9)) }];
}

const acc = (a: number | null): string => (a === null ? '    -  ' : `${a.toFixed(1).padStart(6)}%`);

/** The table as printed: every band over all values, with the text and scan accuracies beside it. */
export function calibrationLines(all: Scored[], text: Scored[], scan: Scored[]): string[] {
  const [cal, calText, calScan] = [calibration(all), calibration(text), calibration(scan)];
  return [
    'confidence band       returned   right   accuracy    (text | scan)',
    ...cal.map(
      (b, i) =>
        `${b.band.padEnd(20)} ${String(b.n).padStart(8)} ${String(b.right).padStart(7)}   ${acc(b.accuracy)}    (${acc(calText[i]!.accuracy)} | ${acc(calScan[i]!.accuracy)})`,
    ),
  ];
}
