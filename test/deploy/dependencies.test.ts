/**
 * What runs where: the packages the build imports are production dependencies (scripts/build.mjs refuses
 * to build otherwise), and every production dependency is something the build needs at run time, so a
 * production install carries no test, build or add-on tooling. Each operator CLI is built and has its script.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConnector, checkProductionDependencies, cliEntryPoints } from '../../scripts/build.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Production dependencies the build loads without an import statement esbuild could see. */
const LOADED_WITHOUT_IMPORT: Record<string, string> = {
  '@napi-rs/canvas': "pdf.js's canvas for rendering pages to OCR (pdfjs-dist requires it itself)",
  '@tesseract.js-data/eng': 'OCR language data, found by path (extract/reading/ocr.ts)',
  '@tesseract.js-data/deu': 'OCR language data, found by path (extract/reading/ocr.ts)',
  '@tesseract.js-data/fra': 'OCR language data, found by path (extract/reading/ocr.ts)',
};

// Inside the repository, as every build must be (scripts/build.mjs); one folder per run.
const outdir = path.join('.cache', `deploy-deps-${process.pid}`);
afterAll(() => fs.rmSync(path.join(ROOT, outdir), { recursive: true, force: true }));

describe('dependencies split by what runs where', () => {
  it('the build imports production dependencies only, and every production dependency is used at run time', async () => {
    const { packages } = await buildConnector(outdir);
    expect(packages).toEqual(expect.arrayContaining(['express', 'better-sqlite3', 'pdfjs-dist', 'tesseract.js']));
    expect(packages.filter((name) => !manifest.dependencies[name])).toEqual([]);
    const unused = Object.keys(manifest.dependencies).filter((name) => !packages.includes(name) && !LOADED_WITHOUT_IMPORT[name]);
    expect(unused).toEqual([]);
    expect(Object.keys(manifest.dependencies).filter((name) => manifest.devDependencies[name])).toEqual([]);
  });

  it('the build refuses an import a production install would lack', () => {
    expect(() => checkProductionDependencies(['express', 'tsx'], manifest)).toThrow(
      'The build imports tsx, not in package.json "dependencies": a production install (npm ci --omit=dev) lacks it',
    );
  });

  it('each CLI of connector/src/cli is built, and its npm script runs the built file', () => {
    const entries = Object.keys(cliEntryPoints());
    expect(entries).toEqual(
      expect.arrayContaining(['cli/keys', 'cli/registry-import', 'cli/sanctions-import', 'cli/datasets', 'cli/openapi']),
    );
    expect(entries).not.toContain('cli/args');
    const run = Object.values(manifest.scripts).flatMap((s) => [...s.matchAll(/\bnode dist\/(cli\/[\w-]+)\.js\b/g)].map((m) => m[1]!));
    expect([...new Set(run)].sort()).toEqual([...entries].sort());
  });
});
