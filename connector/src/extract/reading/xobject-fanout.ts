/**
 * How much a PDF's pages draw once their forms are expanded, counted from the raw bytes before
 * pdf.js opens them. A form XObject drawn ten times, each drawing the next form ten
 * times, seven deep, is 2 KB on the wire and 7.4 million operators to pdf.js, which expands every `Do`
 * of a form anew (it keeps no form's operators): that runs to the processor-time limit, holding an
 * extraction thread for all of it. Here each content stream is tokenized once and its `Do`s resolved
 * through its /Resources, so the expanded count costs the size of the streams, not the fan-out.
 *
 * Counted: for every page of the page tree, the operators of its content streams plus, for each
 * `/Name Do` of a form, the expanded count of that form (E(x) = ops(x) + sum of E(child) over its
 * `Do`s; a form's own count is kept, so each is tokenized and summed once). The document's count is
 * the sum over its pages, the budget being per document like the processor time it stands for. Every
 * form of the file is also counted on its own, which covers forms drawn from outside the pages'
 * contents (annotation appearances, patterns). A form that draws itself, directly or through others,
 * is refused: pdf.js cuts such a loop only where it closes, after drawing every path through it.
 *
 * What cannot be followed is counted as nothing and reported in `unresolved` (a name missing from
 * the resources, a stream whose filter is not Flate, an object not found, an encrypted file): the
 * count is then a lower bound, never a guess, and the processor-time limit stays the bound for the rest.
 */
import { isExtractError } from '../errors.js';
import { count, overLimit, type ExtractLimits } from '../limits.js';
import {
  decodeName,
  decodeStream,
  isDict,
  isStream,
  nameOf,
  PdfRef,
  readObjects,
  type PdfDict,
  type PdfStream,
  type PdfValue,
} from './pdf-objects.js';

export interface FanoutScan {
  /** Content operators the pages draw with their forms expanded, all pages together. */
  pageOps: number;
  /** The largest expanded count of one form, wherever it is drawn from. */
  largestFormOps: number;
  /** Pages and forms counted. */
  pages: number;
  forms: number;
  /** References that could not be followed; above zero, the counts are lower bounds. */
  unresolved: number;
  /** Why nothing was counted, when the pass could not run at all (the limits of time then apply alone). */
  skipped?: 'encrypted' | 'no page tree' | 'unreadable';
}

type Limits = Pick<ExtractLimits, 'maxExpandedOps' | 'maxStreamBytes' | 'maxPages'>;

/** A content stream, tokenized: its operators and the names its `Do`s draw, in order. */
interface Tokens {
  ops: number;
  draws: string[];
}

/**
 * `Do`s followed at most, memoised ones included (a form without resources of its own is counted
 * once per resource dictionary it is drawn through, which a hostile file can multiply): past it
 * the rest is left to the time limit. Real documents have tens.
 */
const MAX_STEPS = 2_000_000;
/** Depth of the page tree, and references followed in a chain. */
const MAX_CHAIN = 64;
/** Nodes of the page tree visited at most (a node may be listed many times): far above any real tree of 20 pages. */
const MAX_TREE_VISITS = 10_000;

/**
 * Counts the operators of a content stream and the names of its `Do`s, stopping at `maxOps`.
 * Operands (numbers, names, strings, arrays, dictionaries) are skipped, and an inline image's data
 * (`ID` to `EI`) whole. Reads the decoded bytes where they are, outside the JS heap.
 */
export function tokenize(src: Uint8Array, maxOps = Infinity): Tokens {
  let ops = 0;
  const draws: string[] = [];
  // The name operand just before, as [start, end) in `src` (start -1: the last token was no name).
  let nameStart = -1;
  let nameEnd = -1;
  const n = src.length;
  let i = 0;
  while (i < n && ops < maxOps) {
    const c = src[i]!;
    if (WHITE[c]) {
      i++;
      continue;
    }
    if (c === 0x25) {
      while (i < n && src[i] !== 0x0a && src[i] !== 0x0d) i++;
      continue;
    }
    if (c === 0x2f) {
      nameStart = ++i;
      while (i < n && REGULAR[src[i]!]) i++;
      nameEnd = i;
      continue;
    }
    const name = nameStart;
    nameStart = -1;
    if (c === 0x28) {
      i = stringEnd(src, i);
    } else if (c === 0x3c && src[i + 1] !== 0x3c) {
      const end = src.indexOf(0x3e, i);
      i = end === -1 ? n : end + 1;
    } else if (!REGULAR[c]) {
      // << >> [ ] { } ): structure of an operand.
      i += (c === 0x3c || c === 0x3e) && src[i + 1] === c ? 2 : 1;
    } else {
      const start = i;
      while (i < n && REGULAR[src[i]!]) i++;
      // Numbers, true, false and null are operands; every other word is an operator.
      if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e || isConstant(src, start, i)) continue;
      ops++;
      const two = i - start === 2;
      if (two && c === 0x44 && src[start + 1] === 0x6f && name !== -1)
        draws.push(latin1(src, name, nameEnd)); // /Name Do
      else if (two && c === 0x49 && src[start + 1] === 0x44) i = inlineImageEnd(src, i); // ID
    }
  }
  return { ops, draws };
}

const latin1 = (src: Uint8Array, start: number, end: number) =>
  Buffer.from(src.buffer, src.byteOffset + start, end - start).toString('latin1');

/** Past a literal string `( ... )` starting at `i`, with its nested parentheses and escapes. */
function stringEnd(src: Uint8Array, i: number): number {
  let depth = 0;
  while (i < src.length) {
    const d = src[i++]!;
    if (d === 0x5c) i++;
    else if (d === 0x28) depth++;
    else if (d === 0x29 && --depth === 0) break;
  }
  return i;
}

const CONSTANTS = ['true', 'false', 'null'];
function isConstant(src: Uint8Array, start: number, end: number): boolean {
  return end - start >= 4 && end - start <= 5 && CONSTANTS.includes(latin1(src, start, end));
}

/** Past an inline image's data, which starts after `ID` at `i`: binary, up to whitespace, EI and whitespace (or the end). */
function inlineImageEnd(src: Uint8Array, i: number): number {
  for (let at = src.indexOf(0x45, i + 1); at !== -1; at = src.indexOf(0x45, at + 1)) {
    if (src[at + 1] === 0x49 && WHITE[src[at - 1]!] && (at + 2 >= src.length || WHITE[src[at + 2]!])) return at + 2;
  }
  return src.length;
}

const WHITE = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITE[c] = 1;
/** Neither whitespace nor a delimiter (ISO 32000-1, 7.2.2). */
const REGULAR = new Uint8Array(256).fill(1);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) REGULAR[c] = 0;

/** The refusal: the message says what the document draws, and the limit. `nested`: forms drawing forms count in it. */
function tooMuch(what: string, nested = true) {
  return overLimit(`The PDF draws too much ${nested ? 'nested ' : ''}content: ${what}.`);
}

/**
 * Throws ExtractError `over_limit` when the pages, or any one form, draw more than
 * `limits.maxExpandedOps` operators once their forms are expanded, or when a form draws itself.
 * `budget.left`: bytes the content and object streams may decode to, all together.
 */
export async function scanFanout(buf: Buffer, limits: Limits, budget = { left: limits.maxStreamBytes }): Promise<FanoutScan> {
  const out: FanoutScan = { pageOps: 0, largestFormOps: 0, pages: 0, forms: 0, unresolved: 0 };
  try {
    return await countDrawing(buf, limits, budget, out);
  } catch (err) {
    if (isExtractError(err)) throw err;
    // A structure this reader did not foresee is no reason to refuse the document: pdf.js reads it, within its time.
    return { ...out, unresolved: out.unresolved + 1, skipped: 'unreadable' };
  }
}

async function countDrawing(buf: Buffer, limits: Limits, budget: { left: number }, out: FanoutScan): Promise<FanoutScan> {
  const objects = await readObjects(buf, budget);
  out.unresolved += objects.unreadObjectStreams;
  if (objects.trailers.some((t) => t.has('Encrypt'))) {
    // The streams are ciphertext until pdf.js decrypts them.
    return { ...out, skipped: 'encrypted' };
  }
  const cap = limits.maxExpandedOps + 1;
  const limitText = `${count(limits.maxExpandedOps)} content operators, the limit per document`;

  const resolve = (v: PdfValue | PdfStream | undefined): PdfValue | PdfStream | undefined => {
    for (let i = 0; v instanceof PdfRef && i < MAX_CHAIN; i++) {
      const next = objects.get(v.num);
      if (next === undefined) out.unresolved++;
      v = next;
    }
    return v instanceof PdfRef ? undefined : v;
  };
  const dictAt = (v: PdfValue | undefined): PdfDict | undefined => {
    const r = resolve(v);
    return isDict(r) ? r : undefined;
  };

  // Each stream decoded and tokenized once, however often it is drawn.
  const tokens = new Map<PdfStream, Tokens | null>();
  const tokensOf = async (stream: PdfStream): Promise<Tokens | null> => {
    if (!tokens.has(stream)) {
      const data = await decodeStream(stream, budget);
      if (data === null) out.unresolved++;
      // Counting stops at the limit: a stream that reaches it alone is refused wherever it is drawn.
      tokens.set(stream, data === null ? null : tokenize(data, cap));
    }
    return tokens.get(stream)!;
  };

  // A form's expanded count depends on the resources it names through: its own, or, without any, its
  // caller's (ISO 32000-1, 8.10.1; pdf.js does the same). Keyed by both.
  const ids = new Map<object, number>();
  const idOf = (o: object) => {
    if (!ids.has(o)) ids.set(o, ids.size + 1);
    return ids.get(o)!;
  };
  const memo = new Map<string, number>();
  const onPath = new Set<PdfStream>();
  let steps = 0;
  let formDraws = 0;

  /** ops + the expanded count of every form drawn, through `resources`; capped at `cap`. */
  const expandDraws = async (t: Tokens, resources: PdfDict | undefined): Promise<number> => {
    let total = t.ops;
    if (total >= cap) return cap;
    if (t.draws.length === 0) return total;
    const xobjects = dictAt(resources?.get('XObject'));
    for (const name of t.draws) {
      if (++steps > MAX_STEPS) {
        if (steps === MAX_STEPS + 1) out.unresolved++;
        break;
      }
      const target = resolve(xobjects?.get(decodeName(name)));
      if (!isStream(target)) {
        out.unresolved++;
        continue;
      }
      if (nameOf(target.dict.get('Subtype')) !== 'Form') continue; // an image: drawn once, its Do already counted
      formDraws++;
      total += await expandForm(target, resources);
      if (total >= cap) return cap;
    }
    return Math.min(total, cap);
  };

  const expandForm = async (form: PdfStream, callerResources: PdfDict | undefined): Promise<number> => {
    const own = dictAt(form.dict.get('Resources'));
    const resources = own ?? callerResources;
    const key = `${idOf(form)}:${resources ? idOf(resources) : 0}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    if (onPath.has(form)) throw tooMuch('one of its forms (XObjects) draws itself, directly or through other forms');
    const t = await tokensOf(form);
    if (t === null) return 0;
    onPath.add(form);
    const e = await expandDraws(t, resources);
    onPath.delete(form);
    memo.set(key, e);
    if (e >= cap)
      throw tooMuch(`one of its forms (XObjects), counting the forms it draws each time they are drawn, comes to more than ${limitText}`);
    return e;
  };

  // The pages, walked from the catalog as pdf.js walks them, with their inherited resources.
  // A file without a readable trailer is one pdf.js reconstructs, finding the catalog by its /Type.
  const root =
    dictAt(
      [...objects.trailers]
        .reverse()
        .find((t) => t.has('Root'))
        ?.get('Root'),
    ) ?? objects.catalog();
  const tree = dictAt(root?.get('Pages'));
  if (!tree) {
    out.unresolved++;
    return { ...out, skipped: 'no page tree' };
  }
  const seen = new Set<PdfDict>();
  let visits = 0;
  const walk = async (node: PdfDict, inherited: PdfDict | undefined, depth: number): Promise<void> => {
    if (seen.has(node) || depth > MAX_CHAIN) return; // pdf.js refuses a page tree that loops
    if (++visits > MAX_TREE_VISITS) {
      if (visits === MAX_TREE_VISITS + 1) out.unresolved++;
      return;
    }
    seen.add(node);
    const resources = node.has('Resources') ? dictAt(node.get('Resources')) : inherited;
    const kids = resolve(node.get('Kids'));
    if (Array.isArray(kids) && nameOf(node.get('Type')) !== 'Page') {
      for (const kid of kids) {
        if (out.pages >= limits.maxPages) break; // more pages are refused when pdf.js opens the file
        const child = dictAt(kid);
        if (child) await walk(child, resources, depth + 1);
      }
      seen.delete(node);
      return;
    }
    seen.delete(node); // a page object may be listed more than once, and is drawn each time
    out.pages++;
    const contents = resolve(node.get('Contents'));
    let pageOps = 0;
    const list: (PdfValue | PdfStream)[] = Array.isArray(contents) ? contents : contents === undefined ? [] : [contents];
    for (const c of list) {
      const stream = resolve(c);
      if (!isStream(stream)) continue;
      const t = await tokensOf(stream);
      if (t) pageOps += await expandDraws(t, resources);
      if (pageOps >= cap) {
        throw formDraws > 0
          ? tooMuch(`page ${out.pages}, counting its forms (XObjects) each time they are drawn, comes to more than ${limitText}`)
          : tooMuch(`page ${out.pages} comes to more than ${limitText}`, false);
      }
    }
    out.pageOps += pageOps;
    if (out.pageOps >= cap) {
      throw formDraws > 0
        ? tooMuch(`pages 1 to ${out.pages}, counting their forms (XObjects) each time they are drawn, come to more than ${limitText}`)
        : tooMuch(`pages 1 to ${out.pages} come to more than ${limitText}`, false);
    }
  };
  await walk(tree, undefined, 0);

  // Every form on its own, through its own resources (a form without any is counted where it is drawn).
  for (const [, stream] of objects.streams()) {
    if (nameOf(stream.dict.get('Subtype')) !== 'Form') continue;
    out.forms++;
    const own = dictAt(stream.dict.get('Resources'));
    if (!own) continue;
    out.largestFormOps = Math.max(out.largestFormOps, await expandForm(stream, own));
  }
  return out;
}
