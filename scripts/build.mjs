// Bundles the connector for `npm start` (esbuild; packages stay external and load from node_modules).
import { build } from 'esbuild';

await build({
  // The extraction worker is its own entry: piscina loads it by path (dist/connector/worker.js,
  // next to main.js, where extract/pool.ts looks for it).
  entryPoints: { 'connector/main': 'connector/src/main.ts', 'connector/worker': 'connector/src/extract/worker.ts' },
  outdir: 'dist',
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
