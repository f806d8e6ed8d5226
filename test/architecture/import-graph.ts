/**
 * The import graph of the source trees, built with the TypeScript compiler's own import scanner
 * (ts.preProcessFile: static imports, `import type`, re-exports and dynamic import()), plus the
 * strongly connected components that are its circles, file by file and folder by folder.
 */
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

/** Repository-relative paths with forward slashes; a package is `npm:<name>`. */
export type Graph = Map<string, string[]>;

const SOURCE = /\.(?:ts|mts|js|mjs)$/;

function listSources(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listSources(root, rel));
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`. */
function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Resolves one specifier as Node and the TypeScript config (NodeNext) do for these trees: a `.js`
 * that names a `.ts` source, a directory's index.ts, or the exact file. Null for Node builtins;
 * `unresolved` when a relative path names nothing (the graph would silently miss an edge).
 */
function resolve(root: string, from: string, spec: string): string | null | { unresolved: string } {
  if (spec.startsWith('node:') || isBuiltin(spec)) return null;
  if (!spec.startsWith('.')) return `npm:${packageName(spec)}`;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, `${base}/index.ts`];
  const hit = candidates.find((c) => fs.existsSync(path.join(root, c)) && fs.statSync(path.join(root, c)).isFile());
  return hit ?? { unresolved: `${from}: ${spec}` };
}

export function buildImportGraph(root: string, dirs: string[]): { graph: Graph; unresolved: string[] } {
  const graph: Graph = new Map();
  const unresolved: string[] = [];
  for (const file of dirs.flatMap((d) => listSources(root, d))) {
    const info = ts.preProcessFile(fs.readFileSync(path.join(root, file), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      const r = resolve(root, file, fileName);
      if (r === null) continue;
      if (typeof r === 'string') targets.add(r);
      else unresolved.push(r.unresolved);
    }
    graph.set(file, [...targets].sort());
  }
  return { graph, unresolved };
}

/** Strongly connected components of more than one node (or a node importing itself): the circles (Tarjan). */
export function circles(graph: Map<string, Iterable<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || [...(graph.get(v) ?? [])].includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * The folder a file belongs to for the folder-level graph: connector/src/<folder> (store/ with both
 * backends is one), or a file directly in connector/src on its own; shared/ and addon/src whole.
 */
export function folderOf(file: string): string {
  const m = /^connector\/src\/([^/]+)(\/|$)/.exec(file);
  if (m) return `connector/src/${m[1]!}`;
  if (file.startsWith('shared/')) return 'shared';
  if (file.startsWith('addon/src/')) return 'addon/src';
  return file;
}

/** Folder -> folders it imports, from file edges (those `skip` says to leave out). */
export function folderGraph(graph: Graph, skip: (from: string, to: string) => boolean): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const a = folderOf(from);
    if (!folders.has(a)) folders.set(a, new Set());
    for (const to of targets) {
      if (to.startsWith('npm:') || !graph.has(to) || skip(from, to)) continue;
      const b = folderOf(to);
      if (b !== a) folders.get(a)!.add(b);
    }
  }
  return folders;
}
