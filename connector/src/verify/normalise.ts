/** Policy numbers are compared after folding case and dropping spaces, dashes and dots. */

// Hyphen-like characters users paste from documents: hyphen, non-breaking hyphen, figure dash, en and em dash, minus.
const SEPARATORS = /[\s\-\u2010\u2011\u2012\u2013\u2014\u2212.]+/g;

export function normalisePolicyNumber(raw: string): string {
  return raw.normalize('NFKC').replace(SEPARATORS, '').toUpperCase();
}
