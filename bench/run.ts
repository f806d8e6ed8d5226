/** npm run bench [-- NAME...]: runs the named benchmarks (default: all) and prints their figures. */
import { benchAddon } from './addon.js';
import { benchBatch } from './batch.js';
import { benchDatasets } from './datasets.js';
import { benchExtract } from './extract.js';
import { benchFields } from './fields.js';
import { benchLayers } from './layers.js';
import { benchScale } from './scale.js';
import { benchVerify } from './verify.js';
import { benchWatch } from './watch.js';
import { benchWriteback } from './writeback.js';

const BENCHES: Record<string, () => Promise<unknown>> = {
  verify: () => benchVerify(),
  layers: () => benchLayers(),
  batch: () => benchBatch(),
  datasets: () => benchDatasets(),
  extract: () => benchExtract(),
  fields: () => benchFields(),
  writeback: () => benchWriteback(),
  addon: () => benchAddon(),
  scale: () => benchScale(),
  watch: () => benchWatch(),
};

const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const name of names.length ? names : Object.keys(BENCHES)) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`Unknown bench "${name}". Known: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  await bench();
}
