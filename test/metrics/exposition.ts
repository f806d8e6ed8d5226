/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every line is
 * a HELP, a TYPE, a blank line or a sample, every sample belongs to a family whose TYPE came before
 * it, and label values are read with their escapes. Anything else throws, naming the line.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name -> counter, gauge, histogram, summary or untyped. */
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** Label pairs `a="x",b="y\"z"` of a `{...}` block, escapes read. */
function readLabels(block: string, line: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 1;
  const end = block.length - 1;
  while (i < end) {
    const eq = block.indexOf('=', i);
    const name = block.slice(i, eq);
    if (eq < 0 || !NAME.test(name) || block[eq + 1] !== '"') throw new Error(`bad label in: ${line}`);
    let value = '';
    let j = eq + 2;
    for (; j < end && block[j] !== '"'; j++) {
      if (block[j] === '\\') {
        const next = block[++j];
        value += next === 'n' ? '\n' : next === '\\' ? '\\' : next === '"' ? '"' : `\\${next}`;
      } else value += block[j];
    }
    if (block[j] !== '"') throw new Error(`unterminated label value in: ${line}`);
    if (name in out) throw new Error(`label ${name} twice in: ${line}`);
    out[name] = value;
    i = j + 1;
    if (block[i] === ',') i++;
  }
  return out;
}

function readValue(raw: string, line: string): number {
  if (raw === '+Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  if (raw === 'NaN' || raw === 'Nan') return NaN;
  const v = Number(raw);
  if (Number.isNaN(v)) throw new Error(`bad value in: ${line}`);
  return v;
}

/** The family a sample belongs to: a histogram's `_bucket`, `_sum` and `_count` are its own. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return types.get(base) === 'histogram' || types.get(base) === 'summary' ? base : undefined;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (!name || !NAME.test(name) || !type || !TYPES.has(type)) throw new Error(`bad TYPE line: ${line}`);
      if (types.has(name)) throw new Error(`TYPE of ${name} twice`);
      types.set(name, type);
      continue;
    }
    if (line.startsWith('#')) throw new Error(`unknown comment line: ${line}`);
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const name = m[1]!;
    if (!familyOf(name, types)) throw new Error(`sample of ${name} before any TYPE of its family`);
    samples.push({ name, labels: m[2] ? readLabels(m[2], line) : {}, value: readValue(m[3]!, line) });
  }
  return { types, samples };
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
export function valueOf(exp: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exp.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** Whether any sample is named `name` with `labels` among its labels. */
export function has(exp: Exposition, name: string, labels: Record<string, string> = {}): boolean {
  return exp.samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}
