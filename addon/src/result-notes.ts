/**
 * Cell notes on unverified and inconclusive rows: why, from the result's
 * checks[] and flags, framed in the user's language (EN, DE, FR from the language packs).
 */
import { COUNTRY_PROFILES, LANGUAGE_PACKS, type TLanguage } from '../../shared/packs/index.js';
import type { TVerificationResult } from '../../shared/verification.js';

/**
 * The user's language: Session.getActiveUserLocale() ("en", "de", or "de_DE" style), else the
 * spreadsheet's locale, else English.
 */
export function userLanguage(): TLanguage {
  const pick = (loc: string | null | undefined): TLanguage | null => {
    const code = String(loc ?? '')
      .slice(0, 2)
      .toLowerCase();
    return code in LANGUAGE_PACKS ? (code as TLanguage) : null;
  };
  let fromUser: string | null = null;
  try {
    fromUser = Session.getActiveUserLocale();
  } catch {
    // Some contexts don't answer; the spreadsheet's locale is the next best guess.
  }
  return pick(fromUser) ?? pick(SpreadsheetApp.getActiveSpreadsheet()?.getSpreadsheetLocale()) ?? 'en';
}

const REGISTER_SOURCES = new Map<string, string>(Object.values(COUNTRY_PROFILES).map((p) => [p.regulator.checkSource, p.regulator.name]));

/** The note for a result, or '' (clears a note left from an earlier run) when the row is verified. */
export function resultNote(r: TVerificationResult | undefined, lang: TLanguage): string {
  if (!r || r.status === 'verified') return '';
  const t = LANGUAGE_PACKS[lang].sheetNotes;
  const lines: string[] = [t.heading[r.status]];
  for (const c of r.checks) {
    if (c.outcome === 'pass') continue;
    const regulator = REGISTER_SOURCES.get(c.source);
    const name = regulator
      ? t.checks.register.replace('{regulator}', regulator)
      : ((t.checks as Record<string, string>)[c.source] ?? c.source);
    lines.push(`• ${name}: ${t.outcomes[c.outcome]}. ${c.detail}`);
  }
  if (r.flags.length) lines.push(`${t.flagsLabel}: ${r.flags.map((f) => t.flags[f]).join(', ')}`);
  lines.push(`${t.confidence}: ${r.confidence_score}`);
  return lines.join('\n');
}
