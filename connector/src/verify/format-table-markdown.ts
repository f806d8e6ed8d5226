/** Renders the format rules as the Markdown table of docs/reference-data.md (a test keeps the two identical). */
import { formatRules } from './format-check.js';

export function formatTableMarkdown(): string {
  const rows = formatRules().map(
    (r) => `| ${r.country} | ${r.insurance_type} | \`${r.pattern.source}\`, at least ${r.minDigits} digits | ${r.basis} |`,
  );
  return ['| Country | Type | Rule (on the normalised number) | Basis |', '|---|---|---|---|', ...rows].join('\n');
}
