// Bundles the connector and the operator CLIs (esbuild) for a production install: packages stay
// external and load from node_modules, so each one the bundle imports must be a production dependency.
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI_DIR = 'connector/src/cli';

/**
 * The operator CLIs: the modules of connector/src/cli/ that no other module there imports. An entry
 * runs its command when loaded, so a module another CLI imports (args.ts) can only be a helper.
 * @returns {Record<string, string>} output name (`cli/keys`) -> source
 */
export function cliEntryPoints() {
  const files = fs.readdirSync(path.join(ROOT, CLI_DIR)).filter((f) => f.endsWith('.ts'));
  const imported = new Set();
  for (const file of files) {
    const source = fs.readFileSync(path.join(ROOT, CLI_DIR, file), 'utf8');
    for (const m of source.matchAll(/from '\.\/([\w.-]+)\.js'/g)) imported.add(`${m[1]}.ts`);
  }
  return Object.fromEntries(files.filter((f) => !imported.has(f)).map((f) => [`cli/${f.slice(0, -3)}`, `${CLI_DIR}/${f}`]));
}

/**
 * The packages a build's output imports (`csv-parse/sync` counts as `csv-parse`), Node's own modules left out.
 * @param {import('esbuild').Metafile} metafile
 */
export function importedPackages(metafile) {
  const names = new Set();
  for (const input of Object.values(metafile.inputs)) {
    for (const imp of input.imports) {
      if (!imp.external || isBuiltin(imp.path)) continue;
      const parts = imp.path.split('/');
      names.add(imp.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
    }
  }
  return [...names].sort();
}

/**
 * Throws when the bundle imports a package that `npm ci --omit=dev` would not install.
 * @param {string[]} packages
 * @param {{ dependencies?: Record<string, string> }} manifest package.json
 */
export function checkProductionDependencies(packages, manifest) {
  const missing = packages.filter((name) => !manifest.dependencies?.[name]);
  if (missing.length)
    throw new Error(`The build imports ${missing.join(', ')}, not in package.json "dependencies": a production install (npm ci --omit=dev) lacks it`);
}

/**
 * Builds into `outdir` (relative to the repository): `connector/` (main.js and its processes' and
 * threads' entries) and `cli/` (one file per operator command). The test run builds once into a folder
 * of its own (test/global-services.ts); like dist/, it must sit inside the repository, or beside a copy
 * of connector/data, since the bundle finds node_modules and connector/data by walking up from itself.
 * @returns {Promise<{ packages: string[] }>} the packages the build imports at run time
 */
export async function buildConnector(outdir = 'dist') {
  const common = {
    absWorkingDir: ROOT,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  };
  const [connector, clis] = await Promise.all([
    build({
      ...common,
      // The extraction process and its pool's worker are their own entries, loaded by path next to
      // main.js: dist/connector/extract-host.js (forked by extract/running/process-pool.ts) and
      // dist/connector/worker.js (loaded by piscina, extract/running/thread-pool.ts).
      entryPoints: {
        'connector/main': 'connector/src/main.ts',
        'connector/extract-host': 'connector/src/extract/running/process-host.ts',
        'connector/worker': 'connector/src/extract/running/thread-worker.ts',
        // The thread that parses large request bodies (offload/index.ts looks for it beside the bundle).
        'connector/offload-worker': 'connector/src/offload/worker.ts',
      },
      // Splitting keeps dynamic imports lazy in the bundle (googleapis loads only with Sheets configured).
      splitting: true,
      chunkNames: 'connector/chunks/[name]-[hash]',
    }),
    // A build of their own, one self-contained file each: no chunk shared with the server moves code
    // that finds its neighbours by import.meta.url (process-pool.ts, offload/index.ts) away from them.
    build({ ...common, entryPoints: cliEntryPoints() }),
  ]);
  const packages = [...new Set([...importedPackages(connector.metafile), ...importedPackages(clis.metafile)])].sort();
  checkProductionDependencies(packages, JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')));
  return { packages };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await buildConnector();
