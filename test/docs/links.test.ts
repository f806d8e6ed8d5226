/**
 * The newcomer's pages stay navigable: every relative link and anchor resolves, every back-ticked repository path names a
 * file or folder that exists, and the README stays short.
 */
import fs from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  'addon/README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

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

/** Build output, local caches and dependencies: not sources a page can point into. */
// Build output, caches and what tests write (all git-ignored): not there in a fresh clone.
const NOT_SOURCES = new Set(['.git', '.cache', 'dist', 'node_modules', 'coverage', 'test/artifacts']);

/** Every file and folder (folders with a trailing `/`) of the repository, relative to its root. */
function repositoryPaths(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      if (NOT_SOURCES.has(entry.name)) continue;
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        out.push(`${rel}/`);
        walk(rel);
      } else out.push(rel);
    }
  };
  walk('');
  return out;
}

const SOURCE_EXTENSION = /\.(?:ts|mjs|cjs|js|json|md|csv|html|sql|ya?ml|sh|txt)$/;

/**
 * Files a page names that only exist after a build, a deployment step or a download, so never in the repository: the
 * add-on bundle, the connector bundle, clasp's per-developer project files, OFSI's published list, the list of a
 * generated corpus (npm run corpus:procedural).
 */
const NOT_IN_REPOSITORY = new Set([
  'Code.js',
  'main.js',
  '.clasp.json',
  '.clasp.dev.json',
  '.clasp.prod.json',
  'ConList.csv',
  'manifest.json',
]);

/**
 * The inline code spans outside fenced blocks that look like repository paths: a name with a source extension, or a
 * folder written with a trailing `/`. Skipped as not a path: spans with spaces (commands, `GET /api/...`), URLs and
 * schemes (`https://`), placeholders and globs (`<code>.ts`, `*.test.ts`, `{en,de}.ts`, `NNN.json`), build output and
 * caches (`dist/`, `.cache/`).
 */
function codePaths(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/`([^`\n]+)`/g)) {
    const span = m[1]!;
    if (/\s|:\/|[<>*{}$]|^[A-Z]{3,}\./.test(span)) continue;
    if (!SOURCE_EXTENSION.test(span) && !/^[\w.-]+(?:\/[\w.-]+)*\/$/.test(span)) continue;
    const rel = span.replace(/^\.\//, '');
    // Beside the repository (`../shared/...`): where the data lives here, not part of a clone.
    if (rel.startsWith('../')) continue;
    // The running connector's own folder at the root (its database, its mail outbox): git-ignored state.
    if (rel.startsWith('data/')) continue;
    if (NOT_SOURCES.has(rel.split('/')[0]!) || NOT_SOURCES.has(rel.split('/').slice(0, 2).join('/').replace(/\/$/, ''))) continue;
    if (NOT_IN_REPOSITORY.has(span)) continue;
    out.push(span);
  }
  return out;
}

/**
 * Where a back-ticked path may point. The pages write a path from the repository root (`connector/src/app.ts`), from
 * connector/src/ (`extract/running/thread-pool.ts`), or from the folder the surrounding text is about (`reading/lines.ts`
 * under extract/, `sqlite/` under store/): such a path must be the tail of a real one. A bare file name (`ranker.ts`)
 * must be some file's name.
 */
function resolves(span: string, paths: readonly string[]): boolean {
  const p = span.replace(/^\.\//, '');
  if (fs.existsSync(path.join(ROOT, p)) || fs.existsSync(path.join(ROOT, 'connector/src', p))) return true;
  return paths.some((real) => real.endsWith(`/${p}`));
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
      if (anchor && target.endsWith('.md') && !anchors(fs.readFileSync(target, 'utf8')).has(anchor))
        broken.push(`${link}: no heading with that anchor`);
    }
    expect(broken).toEqual([]);
  });

  const paths = repositoryPaths();
  it.each(PAGES)('%s: every back-ticked repository path names a file or folder that exists', (page) => {
    const missing = codePaths(fs.readFileSync(path.join(ROOT, page), 'utf8')).filter((span) => !resolves(span, paths));
    expect(missing).toEqual([]);
  });

  it('finds the back-ticked paths it checks, and would flag a moved file', () => {
    expect(codePaths(fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8')).length).toBeGreaterThanOrEqual(20);
    const sample =
      '`extract/running/thread-pool.ts`, `reading/lines.ts`, `shared/errors.ts`, `ranker.ts`, `extract/pool.ts`, `patterns.ts`';
    const skipped = '`https://example.com/a.ts`, `GET /api/v1/openapi.json`, `<section>.ts`, `test/http/*.test.ts`, `dist/addon/Code.js`';
    expect(codePaths(`${sample} ${skipped}\n\`\`\`\n\`in/a/fence.ts\`\n\`\`\`\n`).filter((span) => !resolves(span, paths))).toEqual([
      'extract/pool.ts',
      'patterns.ts',
    ]);
  });

  it('finds the links it checks (a parser that saw none would pass everything)', () => {
    expect(links(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).filter((l) => l.startsWith('docs/')).length).toBeGreaterThanOrEqual(
      10,
    );
    expect(anchors('# A page\n## Known limits\n```\n# not a heading\n```\n')).toEqual(new Set(['a-page', 'known-limits']));
  });

  it('README.md stays the short newcomer page (under 25,000 bytes; depth goes into docs/)', () => {
    expect(fs.statSync(path.join(ROOT, 'README.md')).size).toBeLessThan(25_000);
  });
});
