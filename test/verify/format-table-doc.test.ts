import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatTableMarkdown } from '../../connector/src/verify/format-table-markdown.js';

describe('docs/reference-data.md format table', () => {
  it('is the table the code enforces, word for word', () => {
    expect(fs.readFileSync('docs/reference-data.md', 'utf8')).toContain(formatTableMarkdown());
  });
});
