/** docs/document-limits.md's table of a document's budget is the code's (EXTRACT_LIMITS in config.ts), row for row. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS, EXTRACT_LIMITS, loadConfig } from '../../connector/src/config.js';

/** The markdown table the doc holds: one row per limit, its default in the variable's unit. */
function limitsTable(): string {
  const rows = EXTRACT_LIMITS.map(
    (r) =>
      `| ${r.limit} | \`${r.env}\` | ${r.default.toLocaleString('en-US')}${r.unit ? ` ${r.unit}` : ''} | ${r.checked} | ${r.example} |`,
  );
  return ['| Limit | Variable | Default | Checked | Message (example) |', '|---|---|---|---|---|', ...rows].join('\n');
}

describe('document limits', () => {
  it('docs/document-limits.md has the table EXTRACT_LIMITS makes, word for word', () => {
    expect(fs.readFileSync('docs/document-limits.md', 'utf8')).toContain(`${limitsTable()}\n\n`);
  });

  it('the defaults and the variables derive from the same rows', () => {
    expect(EXTRACT_LIMIT_DEFAULTS).toEqual(loadConfig({}).extraction.limits);
    expect(EXTRACT_LIMIT_DEFAULTS.maxStreamBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ COVERCHECK_EXTRACT_MAX_STREAM_MB: '5', COVERCHECK_EXTRACT_MAX_PAGES: '3' }).extraction.limits).toMatchObject({
      maxStreamBytes: 5 * 1024 * 1024,
      maxPages: 3,
    });
    for (const r of EXTRACT_LIMITS) {
      expect(() => loadConfig({ [r.env]: String(r.min - 1) })).toThrow(
        `Invalid configuration:\n  ${r.env}: Too small: expected number to be >=${r.min}`,
      );
      expect(() => loadConfig({ [r.env]: String(r.max * 10) })).toThrow(`${r.env}: Too big`);
    }
  });
});
