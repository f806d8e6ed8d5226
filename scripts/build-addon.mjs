// Bundles the add-on for Apps Script V8 into dist/addon: Code.js (an IIFE that sets
// globalThis.__covercheck, then one top-level stub per entry point), the HTML files (with
// addon/html/styles.css inlined where they say <!-- styles.css -->) and appsscript.json. The
// manifest's urlFetchWhitelist is compiled in, so Settings can check a connector URL against it.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = path.join(root, 'dist/addon');
fs.mkdirSync(out, { recursive: true });
// A test file may build the add-on while another reads it (with more than one vitest worker): every file is
// written under a temporary name and renamed into place, so a reader sees the old file or the new one, never
// none or half.
const written = new Set();
const put = (name, data) => {
  const tmp = path.join(out, `.${name}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, path.join(out, name));
  written.add(name);
};

const manifest = JSON.parse(fs.readFileSync(path.join(root, 'appsscript.json'), 'utf8'));
if (manifest.addOns) throw new Error('appsscript.json: an Editor add-on has no addOns block (that is Workspace add-on configuration)');

const result = await build({
  entryPoints: [path.join(root, 'addon/src/main.ts')],
  bundle: true,
  write: false,
  format: 'iife',
  platform: 'neutral',
  target: 'es2020',
  mainFields: ['module', 'main'],
  minify: true,
  legalComments: 'none',
  define: { __URL_FETCH_ALLOWLIST__: JSON.stringify(manifest.urlFetchWhitelist ?? []) },
  // The contract's zod schemas run at module load; bundle zod without its locales and JSON Schema code.
  plugins: [
    {
      name: 'zod-lite',
      setup(b) {
        b.onResolve({ filter: /^zod$/ }, () => ({ path: path.join(root, 'addon/src/zod-lite.js') }));
      },
    },
  ],
  logLevel: 'warning',
});
const bundle = result.outputFiles[0].text;

// The entry points are whatever main.ts put on globalThis.__covercheck: evaluate the bundle once to list them.
const sandbox = {};
vm.runInNewContext(bundle, vm.createContext(sandbox));
const names = Object.keys(sandbox.__covercheck ?? {});
if (!names.includes('VERIFYPOLICY') || !names.includes('onOpen')) throw new Error(`entry points missing: got ${names.join(', ')}`);

// The custom function's stub carries the JSDoc Sheets shows in autocomplete (it reads only top-level
// declarations). Its lists of countries and types come from the packs, like every other such list.
const packsBuild = await build({ entryPoints: [path.join(root, 'shared/packs/index.ts')], bundle: true, write: false, format: 'esm', platform: 'neutral', logLevel: 'warning' });
const packs = await import(`data:text/javascript;base64,${Buffer.from(packsBuild.outputFiles[0].text).toString('base64')}`);
const orList = (xs) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}` : xs[0]);
const aliases = packs.COUNTRIES.flatMap((c) => packs.COUNTRY_PROFILES[c].aliases.map((a) => `${a} is accepted as ${c}`));
const src = fs
  .readFileSync(path.join(root, 'addon/src/verifypolicy-doc.txt'), 'utf8')
  .trim()
  .replace('{{COUNTRIES}}', `${orList(packs.COUNTRIES)}${aliases.length ? ` (${aliases.join(', ')})` : ''}, or a name such as ${packs.COUNTRY_NAME_EXAMPLES.join(', ')}`)
  .replace('{{TYPES}}', `${orList(packs.INSURANCE_TYPES)}, or a word such as ${packs.INSURANCE_TYPE_WORD_EXAMPLES.join(', ')}`);
const stubs = names.map((n) =>
  n === 'VERIFYPOLICY'
    ? `${src}\nfunction VERIFYPOLICY(policy_number, country, insurance_type, provider, output) {\n  return globalThis.__covercheck.VERIFYPOLICY(policy_number, country, insurance_type, provider, output);\n}`
    : `function ${n}(...args) {\n  return globalThis.__covercheck.${n}(...args);\n}`,
);
const code = `// Covercheck add-on: built by scripts/build-addon.mjs from addon/src. Do not edit.\n${bundle}\n${stubs.join('\n\n')}\n`;
put('Code.js', code);

const styles = fs.readFileSync(path.join(root, 'addon/html/styles.css'), 'utf8');
for (const f of fs.readdirSync(path.join(root, 'addon/html'))) {
  if (!f.endsWith('.html')) continue;
  const html = fs.readFileSync(path.join(root, 'addon/html', f), 'utf8');
  put(f, html.replace('<!-- styles.css -->', `<style>\n${styles}</style>`));
}
put('appsscript.json', fs.readFileSync(path.join(root, 'appsscript.json')));
// What an earlier build wrote and this one did not (a page since removed) goes, so clasp pushes only this build.
for (const f of fs.readdirSync(out)) if (!written.has(f) && !f.endsWith('.tmp')) fs.rmSync(path.join(out, f), { recursive: true, force: true });
console.log(`dist/addon/Code.js ${(Buffer.byteLength(code) / 1024).toFixed(1)} KB, ${names.length} entry points`);
