/**
 * The README's curl examples, run as written against the built connector (what `npm start` runs) with
 * its printed sandbox key: every command must answer, and where the README shows the answer in a
 * `# {...}` comment below the command, the real answer must have it. Ids the README abbreviates
 * (`"0b5c…"`) are taken from the real answer and put into the commands that follow, as a reader would.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltConnector, stopBuiltConnector, type BuiltConnector } from '../helpers/built-connector.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Example {
  command: string;
  /** The answer the README shows under the command, parsed; null when it shows none. */
  shown: unknown;
}

/** The curl commands of the README's `sh` blocks, continuation lines joined, each with the answer shown below it. */
function readmeExamples(markdown: string): Example[] {
  const out: Example[] = [];
  for (const block of markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    const lines = block[1]!.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]!.startsWith('curl ')) continue;
      let command = lines[i]!;
      while (command.endsWith('\\')) command = command.slice(0, -1) + lines[++i]!.trim();
      const next = lines[i + 1] ?? '';
      const json = next.startsWith('# {') ? next.slice(2, next.lastIndexOf('}') + 1) : null;
      out.push({ command, shown: json === null ? null : JSON.parse(json) });
    }
  }
  return out;
}

/**
 * Whether `actual` has what the README shows: `"…"` stands for anything (as a key: more keys; in a string:
 * a value the reader's run differs in, recorded in `ids` so later commands can use it).
 */
function check(shown: unknown, actual: unknown, where: string, ids: Map<string, string>): string[] {
  if (typeof shown === 'string' && shown.includes('…')) {
    if (typeof actual !== 'string') return [`${where}: expected a string, got ${JSON.stringify(actual)}`];
    const id = /([0-9a-f]{4})…/.exec(shown);
    if (id && /^[0-9a-f-]{36}$/.test(actual)) ids.set(`${id[1]}…`, actual);
    return [];
  }
  if (shown && typeof shown === 'object') {
    if (!actual || typeof actual !== 'object') return [`${where}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(shown).flatMap(([k, v]) =>
      k === '…' ? [] : k in actual ? check(v, (actual as Record<string, unknown>)[k], `${where}.${k}`, ids) : [`${where}.${k}: missing`],
    );
  }
  return Object.is(shown, actual)
    ? []
    : [`${where}: the README shows ${JSON.stringify(shown)}, the connector answered ${JSON.stringify(actual)}`];
}

describe("the README's examples answer as the README says", () => {
  let c: BuiltConnector;
  beforeAll(async () => {
    c = await startBuiltConnector({});
  }, 90_000);
  afterAll(async () => {
    if (c) await stopBuiltConnector(c, { removeDir: true });
  });

  it('every curl command of the README, in order', async () => {
    const examples = readmeExamples(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(examples.length).toBeGreaterThanOrEqual(8);
    const ids = new Map<string, string>();
    const problems: string[] = [];
    for (const { command, shown } of examples) {
      let cmd = command.replaceAll('localhost:8080', `127.0.0.1:${c.port}`);
      for (const [short, full] of ids) cmd = cmd.replaceAll(short, full);
      const { stdout } = await run('sh', ['-c', cmd], { cwd: ROOT, env: { PATH: process.env.PATH, KEY: c.key } });
      let body: unknown;
      try {
        body = JSON.parse(stdout);
      } catch {
        problems.push(`${command}\n  answered no JSON: ${stdout.slice(0, 200)}`);
        continue;
      }
      const found =
        shown === null
          ? body && typeof body === 'object' && 'error' in body
            ? [`an error: ${JSON.stringify(body)}`]
            : []
          : check(shown, body, 'answer', ids);
      if (found.length) problems.push(`${command}\n  ${found.join('\n  ')}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
