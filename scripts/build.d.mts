/** Types of build.mjs for the TypeScript that imports it (the test run's global setup, the benches, test/deploy/). */
import type { Metafile } from 'esbuild';

export function buildConnector(outdir?: string): Promise<{ packages: string[] }>;
export function cliEntryPoints(): Record<string, string>;
export function importedPackages(metafile: Metafile): string[];
export function checkProductionDependencies(packages: string[], manifest: { dependencies?: Record<string, string> }): void;
