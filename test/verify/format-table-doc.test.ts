import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatTableMarkdown } from '../../connector/src/verify/format-table.js';

describe('README format table', () => {
  it('is the table the code enforces, word for word', () => {
    expect(fs.readFileSync('README.md', 'utf8')).toContain(formatTableMarkdown());
  });
});
