/** Renders the format table as Markdown for docs/reference-data.md (a test keeps the two identical). */
import { FORMAT_RULES } from './patterns.js';

export function formatTableMarkdown(): string {
  const rows = FORMAT_RULES.map((r) => `| ${r.country} | ${r.insurance_type} | \`${r.pattern.source}\`, at least ${r.minDigits} digits | ${r.basis} |`);
  return ['| Country | Type | Rule (on the normalised number) | Basis |', '|---|---|---|---|', ...rows].join('\n');
}
