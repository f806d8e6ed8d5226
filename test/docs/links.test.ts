/** The newcomer's pages stay navigable: every relative link and anchor resolves, and the README stays short. */
import fs from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = ['README.md', 'addon/README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Markdown without fenced code blocks and inline code, where a bracket is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub gives a page's headings. */
function anchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const out = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*$/gm)) out.add(slugger.slug(m[1]!));
  return out;
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

describe('documentation links', () => {
  it.each(PAGES)('%s: every relative link names a file that exists, and every anchor a heading in it', (page) => {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    const broken: string[] = [];
    for (const link of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: ... are not checked offline
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = file ? path.resolve(path.dirname(path.join(ROOT, page)), decodeURIComponent(file)) : path.join(ROOT, page);
      if (!fs.existsSync(target)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor && target.endsWith('.md') && !anchors(fs.readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading with that anchor`);
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks (a parser that saw none would pass everything)', () => {
    expect(links(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).filter((l) => l.startsWith('docs/')).length).toBeGreaterThanOrEqual(10);
    expect(anchors('# A page\n## Known limits\n```\n# not a heading\n```\n')).toEqual(new Set(['a-page', 'known-limits']));
  });

  it('README.md stays the short newcomer page (under 25,000 bytes; depth goes into docs/)', () => {
    expect(fs.statSync(path.join(ROOT, 'README.md')).size).toBeLessThan(25_000);
  });
});
