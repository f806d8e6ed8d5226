/** docs/configuration.md lists exactly the variables config.ts reads, with the defaults it applies. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EnvSchema } from '../../connector/src/config.js';

/** The first two cells of each row of the doc's variables table: the variables named, and the default as written. */
function documented(): { names: string[]; defaultCell: string }[] {
  const doc = fs.readFileSync('docs/configuration.md', 'utf8');
  const rows = doc.split('\n').filter((l) => l.startsWith('| `'));
  return rows.map((row) => {
    const [names, defaultCell] = row.split(' | ') as [string, string];
    return { names: [...names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!), defaultCell };
  });
}

describe('docs/configuration.md', () => {
  it('lists every variable of the schema once, and no other', () => {
    const names = documented().flatMap((r) => r.names);
    expect(names.length).toBeGreaterThan(50);
    expect([...names].sort()).toEqual(Object.keys(EnvSchema.shape).sort());
  });

  it("gives the schema's default where it writes one as a value", () => {
    const defaults = EnvSchema.parse({}) as Record<string, unknown>;
    const wrong: string[] = [];
    for (const { names, defaultCell } of documented()) {
      const literal = /^`([^`]*)`$/.exec(defaultCell.trim());
      if (names.length !== 1 || !literal) continue;
      const name = names[0]!;
      if (defaults[name] !== undefined && String(defaults[name]) !== literal[1])
        wrong.push(`${name}: doc ${literal[1]}, code ${String(defaults[name])}`);
    }
    expect(wrong).toEqual([]);
  });
});
