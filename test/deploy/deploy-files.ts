/** Reading the files deploy/ ships, as systemd and Caddy would read them. */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A file of the repository (`deploy/Caddyfile`, `package.json`) as text. */
export function readDeployFile(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

/** A unit file's `Key=value` lines by section; a key given twice keeps both values, as systemd does for Environment=. */
export function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) current = sections[section[1]!] = {};
    else {
      const m = /^(\w+)=(.*)$/.exec(line);
      if (!m || !current) throw new Error(`not a unit line: ${line}`);
      (current[m[1]!] ??= []).push(m[2]!);
    }
  }
  return sections;
}

/** An EnvironmentFile: `NAME=value` lines, comments and blank lines skipped. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m) throw new Error(`not a NAME=value line: ${line}`);
    out[m[1]!] = m[2]!;
  }
  return out;
}
