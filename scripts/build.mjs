// Bundles the connector for `npm start` (esbuild; packages stay external and load from node_modules).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Builds into `outdir` (relative to the repository). The test run builds once into a folder of its
 * own (test/global-services.ts); like dist/, it must sit inside the repository, since the bundle
 * finds node_modules and connector/data by walking up from itself.
 */
export async function buildConnector(outdir = 'dist') {
  await build({
    absWorkingDir: ROOT,
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
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    // Splitting keeps dynamic imports lazy in the bundle (googleapis loads only with Sheets configured).
    splitting: true,
    chunkNames: 'connector/chunks/[name]-[hash]',
    sourcemap: true,
    logLevel: 'warning',
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await buildConnector();
