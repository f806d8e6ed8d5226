// Bundles the connector for `npm start` (esbuild; packages stay external and load from node_modules).
import { build } from 'esbuild';

await build({
  entryPoints: { 'connector/main': 'connector/src/main.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
