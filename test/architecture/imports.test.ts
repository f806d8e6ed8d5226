/**
 * The architecture as the import graph shows it (docs/architecture.md): no circles between files or
 * between folders, and each layer imports only from layers below it. The rules are data, each with
 * its reason; a failure names the offending imports.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildImportGraph, circles, folderGraph, folderOf, type Graph } from './import-graph.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TREES = ['connector/src', 'shared', 'addon/src'];

// Folders of connector/src by layer, lowest first.
/** Plain code the whole connector leans on; knows no domain. */
const FOUNDATION = String.raw`connector/src/(?:(?:config|logger|errors|parse|paths|mailer)\.ts|redis/|workers/)`;
/** What the product does: each folder works on the Store and plain values, whoever calls it. */
const DOMAIN = String.raw`connector/src/(?:auth|credits|datasets|extract|history|insurers|jobs|sanctions|sheets|verify|watches|webhooks|demo)/`;
/** Where requests come in: middleware, routes, the portal's pages, body parsing off-thread, the CLI. */
const EDGE = String.raw`connector/src/(?:http|routes|portal|offload|cli)/`;
/** The composition root and what it assembles: built last, imported by nothing below. */
const ROOT_FILES = String.raw`connector/src/(?:app|context|start|main)\.ts`;

// The three rooms of extract/ (docs/architecture.md), and the files at its top that they share.
/** Running documents: the thread and process pools, the extraction process, priority. */
const EXTRACT_RUNNING = 'connector/src/extract/running/';
/** Reading pages: PDF bytes to text lines (the raw-byte checks, pdf.js, render, OCR). */
const EXTRACT_READING = 'connector/src/extract/reading/';
/** Finding fields: text lines to the contract's fields (candidates, ranker, coverage). */
const EXTRACT_FIELDS = 'connector/src/extract/fields/';

interface LayerRule {
  name: string;
  /** Files the rule holds for. */
  from: RegExp;
  /** Targets they may not import: repository paths, or npm:<package>. */
  forbidden: RegExp;
}

const re = (...alternatives: string[]) => new RegExp(`^(?:${alternatives.join('|')})`);

const RULES: LayerRule[] = [
  // Both sides import the contract; if it imported either side, the add-on bundle would pull in
  // server code (or the reverse), and the contract would stop being the one thing both agree on.
  { name: 'shared/ imports nothing from connector/ or addon/', from: re('shared/'), forbidden: re('connector/', 'addon/') },
  // The add-on runs in Apps Script and reaches the connector only over HTTP; esbuild would bundle
  // any connector module it imported into the add-on.
  { name: 'addon/ imports nothing from connector/', from: re('addon/'), forbidden: re('connector/') },
  // Storage is the bottom of the domain: every domain module is written against the Store
  // interface. A backend that reached up into a domain, the edge or the root would make circles
  // and could behave differently from the other backend without the contract suite seeing why.
  { name: 'store/ imports no domain, edge or root module', from: re('connector/src/store/'), forbidden: re(DOMAIN, EDGE, ROOT_FILES) },
  // The two backends are alternatives chosen at start (store/index.ts); one borrowing from the
  // other ties PostgreSQL's code to SQLite's files.
  {
    name: 'store/postgres/ and store/sqlite/ import nothing from each other',
    from: re('connector/src/store/postgres/'),
    forbidden: re('connector/src/store/sqlite/'),
  },
  {
    name: 'store/sqlite/ and store/postgres/ import nothing from each other',
    from: re('connector/src/store/sqlite/'),
    forbidden: re('connector/src/store/postgres/'),
  },
  // Domain code is called by routes, job workers, the CLI and tests alike: it throws AppError or
  // returns plain values, and never sees a request, a response or the whole context.
  {
    name: 'domain modules import no http/, routes/, portal/, offload/, cli/, express or root file',
    from: re(DOMAIN),
    forbidden: re(EDGE, ROOT_FILES, 'npm:express$'),
  },
  // Foundations sit under everything; one that imported a domain or the edge would put that above
  // every module that uses the foundation.
  { name: 'foundation modules import no domain, edge or root module', from: re(FOUNDATION), forbidden: re(DOMAIN, EDGE, ROOT_FILES) },
  // Middleware is assembled by app.ts and is handed what it reads (the key table, a clock); taking
  // the context or a route would make circles through app.ts.
  {
    name: 'http/ imports no routes/, portal/, cli/ or root file',
    from: re('connector/src/http/'),
    forbidden: re('connector/src/(?:routes|portal|cli)/', ROOT_FILES),
  },
  // The portal receives PortalDeps (portal/app.ts), not the AppContext: it is built by app.ts, and
  // importing the context back was the context -> portal -> context circle.
  {
    name: 'portal/ imports no routes/ or root file',
    from: re('connector/src/portal/'),
    forbidden: re('connector/src/routes/', ROOT_FILES),
  },
  // Routes are mounted by app.ts, which start.ts builds; a route importing either is a circle.
  {
    name: 'routes/ import no portal/ and no app.ts, start.ts or main.ts',
    from: re('connector/src/routes/'),
    forbidden: re('connector/src/portal/', String.raw`connector/src/(?:app|start|main)\.ts`),
  },
  // Finding fields is a function of text lines: the evals, the ranker's training and the tests call it
  // with no thread or process, and no field rule may depend on where or how long a document runs.
  { name: 'extract/fields/ imports nothing from extract/running/', from: re(EXTRACT_FIELDS), forbidden: re(EXTRACT_RUNNING) },
  // Reading a page is the same in a test, a script (make-corpus, measure-ocr) and a pool thread; the
  // pools hold time and memory from outside, and piscina or child_process has no place in a thread.
  { name: 'extract/reading/ imports nothing from extract/running/', from: re(EXTRACT_READING), forbidden: re(EXTRACT_RUNNING) },
  // Pages are read without knowing which fields are sought; the lines are the hand-off and
  // pipeline.ts joins the two, so the evals score field changes on cached lines without reading again.
  { name: 'extract/reading/ imports nothing from extract/fields/', from: re(EXTRACT_READING), forbidden: re(EXTRACT_FIELDS) },
  // The other way, only the Line (reading/lines.ts) crosses: field code that opened a PDF or ran OCR
  // could no longer be scored on cached lines exactly as an upload is read.
  {
    name: 'extract/fields/ imports from extract/reading/ only lines.ts',
    from: re(EXTRACT_FIELDS),
    forbidden: re(String.raw`${EXTRACT_READING}(?!lines\.ts$)`),
  },
  // Every room throws ExtractError and checks the document's budget, and both the text layer and the fields ask
  // whether two spaced words are one label: these files sit under all three, and one importing a room would put
  // that room under itself.
  {
    name: 'extract/errors.ts, limits.ts and spaced-label.ts import none of running/, reading/, fields/',
    from: re(String.raw`connector/src/extract/(?:errors|limits|spaced-label)\.ts$`),
    forbidden: re(EXTRACT_RUNNING, EXTRACT_READING, EXTRACT_FIELDS),
  },
  // pipeline.ts is what a pool thread runs, and what tests and scripts call with no pool at all.
  {
    name: 'extract/pipeline.ts imports nothing from extract/running/',
    from: re(String.raw`connector/src/extract/pipeline\.ts$`),
    forbidden: re(EXTRACT_RUNNING),
  },
];

interface Allowed {
  from: string;
  to: string;
  why: string;
}

/**
 * Known imports that break a rule, each to be removed by the work named in `why`. An entry that no
 * longer matches a breaking import fails the test, so it is deleted once the import is gone.
 */
const ALLOWED: Allowed[] = [
  // No import breaks a rule today. An entry looks like:
  // { from: 'connector/src/store/sqlite/datasets.ts', to: 'connector/src/datasets/search-query.ts', why: 'the change that removes it' },
];

const isAllowed = (from: string, to: string) => ALLOWED.some((a) => a.from === from && a.to === to);

function violations(graph: Graph, rule: LayerRule): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    if (!rule.from.test(from)) continue;
    for (const to of targets) if (rule.forbidden.test(to)) out.push(`${from} -> ${to}`);
  }
  return out;
}

const { graph, unresolved } = buildImportGraph(ROOT, TREES);

describe('the import graph', () => {
  it('is read whole: every relative import resolves to a file, and the known entry points are in it', () => {
    expect(unresolved).toEqual([]);
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('connector/src/main.ts')).toContain('connector/src/start.ts');
    expect(graph.get('connector/src/app.ts')).toContain('npm:express');
    expect([...graph.keys()].some((f) => f.startsWith('addon/src/') && graph.get(f)!.some((t) => t.startsWith('shared/')))).toBe(true);
  });

  it('has no circles between files', () => {
    expect(circles(new Map([...graph].map(([f, ts]) => [f, ts.filter((t) => !isAllowed(f, t))])))).toEqual([]);
  });

  it('has no circles between folders (connector/src/<folder>, each top-level file, shared, addon/src)', () => {
    const folders = folderGraph(graph, isAllowed);
    const found = circles(folders);
    // The imports behind each circle, so the message says what to move.
    const behind = found.map((c) =>
      [...graph].flatMap(([f, ts]) =>
        ts
          .filter(
            (t) => !isAllowed(f, t) && graph.has(t) && folderOf(t) !== folderOf(f) && c.includes(folderOf(f)) && c.includes(folderOf(t)),
          )
          .map((t) => `${f} -> ${t}`),
      ),
    );
    expect(behind).toEqual([]);
  });

  for (const rule of RULES) {
    it(rule.name, () => {
      expect(violations(graph, rule).filter((v) => !ALLOWED.some((a) => v === `${a.from} -> ${a.to}`))).toEqual([]);
    });
  }

  it('allows only imports that still exist and still break a rule or make a circle (delete an entry once its import is gone)', () => {
    const stale = ALLOWED.filter((a) => {
      if (!graph.get(a.from)?.includes(a.to)) return true;
      const breaksRule = RULES.some((r) => r.from.test(a.from) && r.forbidden.test(a.to));
      const folders = folderGraph(graph, () => false);
      const inCircle = circles(folders).some((c) => c.includes(folderOf(a.from)) && c.includes(folderOf(a.to)));
      return !breaksRule && !inCircle;
    });
    expect(stale).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('find a circle of two files and one of three, and none in a chain', () => {
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b']]);
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('find a domain module importing express, and a store file importing a route', () => {
    const toy: Graph = new Map([
      ['connector/src/jobs/x.ts', ['npm:express', 'connector/src/store/types.ts']],
      ['connector/src/store/sqlite/y.ts', ['connector/src/routes/jobs.ts']],
    ]);
    const found = RULES.flatMap((r) => violations(toy, r));
    expect(found).toContain('connector/src/jobs/x.ts -> npm:express');
    expect(found).toContain('connector/src/store/sqlite/y.ts -> connector/src/routes/jobs.ts');
    expect(found).not.toContain('connector/src/jobs/x.ts -> connector/src/store/types.ts');
  });

  it('find field code importing the running code or a reading module other than lines.ts', () => {
    const toy: Graph = new Map([
      [
        'connector/src/extract/fields/x.ts',
        ['connector/src/extract/running/thread-pool.ts', 'connector/src/extract/reading/ocr.ts', 'connector/src/extract/reading/lines.ts'],
      ],
      ['connector/src/extract/reading/y.ts', ['connector/src/extract/fields/text.ts']],
    ]);
    const found = RULES.flatMap((r) => violations(toy, r));
    expect(found).toContain('connector/src/extract/fields/x.ts -> connector/src/extract/running/thread-pool.ts');
    expect(found).toContain('connector/src/extract/fields/x.ts -> connector/src/extract/reading/ocr.ts');
    expect(found).toContain('connector/src/extract/reading/y.ts -> connector/src/extract/fields/text.ts');
    expect(found).not.toContain('connector/src/extract/fields/x.ts -> connector/src/extract/reading/lines.ts');
  });
});
