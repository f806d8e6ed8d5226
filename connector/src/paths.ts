/** Locates the shipped reference data whether running from sources (tsx) or the bundle in dist/. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

/** The repository's `connector/data` folder. */
export function shippedDataDir(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'connector', 'data');
    if (fs.existsSync(path.join(candidate, 'registry'))) return (cached = candidate);
    dir = path.dirname(dir);
  }
  throw new Error('connector/data not found above ' + fileURLToPath(import.meta.url));
}
