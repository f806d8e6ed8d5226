/** OCR with tesseract.js: a bounded set of workers created once, language data read only from the @tesseract.js-data npm packages. */
import { copyFileSync, existsSync, mkdirSync, renameSync, symlinkSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createWorker, OEM, PSM, type RecognizeResult, type Worker } from 'tesseract.js';
import { linesFromBoxes, type Line, type WordBox } from './lines.js';
import { OCR_LANGUAGES } from './ocr-languages.js';

/** What the pipeline needs from OCR; tests may pass a fake. */
export interface Ocr {
  /** Reads an image (PGM, PNG or JPEG bytes) into reading-order lines. */
  recognize(image: Buffer, options?: RecognizeOptions): Promise<OcrResult>;
  terminate(): Promise<void>;
}

export interface RecognizeOptions {
  /** A photo of a sheet (light and focus vary across it), not a scan or a rendered page: see THRESHOLDING. */
  photo?: boolean;
}

export interface OcrResult {
  lines: Line[];
  /** Mean word confidence of the kept words, 0..1. */
  confidence: number;
  /** Words kept. */
  words?: number;
  /**
   * Share of the kept words of four or more letters that are taller than wide, 0..1: text running
   * up or down the image, a page on its side. Tesseract reads such lines, but as vertical text.
   */
  sideways?: number;
}

export interface OcrOptions {
  /** Tesseract workers (each a WASM instance, ~100-150 MB with three languages). Default: cores - 1, at least 1. */
  workers?: number;
  /** Tesseract language string. Default: every language pack's model ('eng+deu+fra' reads umlauts and accents); 'eng' alone is faster. */
  languages?: string;
  /**
   * Folder that will hold links to the traineddata files. Tesseract loads every language of a worker
   * from one folder and the npm packages keep each language in its own, so multi-language workers
   * need this. Default: a folder under os.tmpdir().
   */
  langDir?: string;
}

/** Words tesseract itself rates below this are mostly scanner noise read as letters. */
const MIN_WORD_CONFIDENCE = 20;
/**
 * On a line where tesseract also read a table rule (a token of underscores), it rates the line's real
 * words lower, the rule's debris dragging the line down: a fax's "KH-1831-086576" next to a dotted rule
 * came out right at 17. There, a word of four letters or digits is kept down to this.
 */
const MIN_WORD_CONFIDENCE_BY_RULE = 10;
/** A table rule read as text. */
const RULE_DEBRIS = /^_+$/;

const require = createRequire(import.meta.url);

/** The gzipped LSTM-only ("best_int") model of a language, shipped by @tesseract.js-data/<lang>. */
export function traineddataPath(lang: string): string {
  const pkg = path.dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`));
  return path.join(pkg, '4.0.0_best_int', `${lang}.traineddata.gz`);
}

/** Makes `dir` hold `<lang>.traineddata.gz` for every language, as links to (or copies of) the package files. */
export function prepareLangDir(languages: string[], dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const lang of languages) {
    const source = traineddataPath(lang);
    if (!existsSync(source)) throw new Error(`OCR language data missing: ${source} (install @tesseract.js-data/${lang})`);
    const target = path.join(dir, `${lang}.traineddata.gz`);
    // existsSync follows the link: a link left by an install that has since moved or gone is dangling and
    // is replaced. The new link is made under a name of this thread's and renamed over the target, so
    // threads and processes racing here never see a half-made file, and copying never writes through a link.
    if (existsSync(target)) continue;
    const temp = `${target}.${process.pid}-${threadId}.tmp`;
    try {
      symlinkSync(source, temp);
    } catch {
      copyFileSync(source, temp);
    }
    renameSync(temp, target);
  }
  return dir;
}

interface TessLine {
  bbox: { x0: number; y0: number; x1: number; y1: number };
  baseline?: { x0: number; y0: number; x1: number; y1: number };
}

/** Median baseline slope of the page's longer lines: the scan's rotation, as dy/dx. */
function pageSkew(lines: TessLine[]): number {
  const slopes = lines
    .filter((l) => l.baseline && l.baseline.x1 - l.baseline.x0 > 150)
    .map((l) => (l.baseline!.y1 - l.baseline!.y0) / (l.baseline!.x1 - l.baseline!.x0))
    .sort((a, b) => a - b);
  return slopes.length ? (slopes[Math.floor(slopes.length / 2)] as number) : 0;
}

/**
 * Tesseract's binarisation for layout analysis (its `thresholding_method`): one Otsu threshold for the page, or
 * Sauvola's threshold per neighbourhood for a photo (RecognizeOptions.photo), whose light and focus vary across the sheet. One
 * threshold loses faint, soft print beside darker text there (a label column dropped whole); on scans and faxes
 * it reads as well or better. The recognizer itself reads the grey image either way.
 */
const THRESHOLDING: Record<'page' | 'photo', string> = { page: '0', photo: '2' };

/**
 * Creates `workers` tesseract workers; jobs queue until a worker is free.
 * The language data never comes from the network: langPath is a local folder (tesseract.js only
 * downloads when langPath is unset or a URL) and cacheMethod 'none' stops it writing copies into
 * the working directory. Worker and core scripts resolve from node_modules in Node.
 */
export async function createOcr(options: OcrOptions = {}): Promise<Ocr> {
  const languages = options.languages ?? OCR_LANGUAGES;
  const langs = languages.split('+');
  const count = Math.max(1, options.workers ?? Math.max(1, os.availableParallelism() - 1));
  const langPath =
    langs.length === 1
      ? path.dirname(traineddataPath(langs[0] as string))
      : prepareLangDir(langs, options.langDir ?? path.join(os.tmpdir(), `covercheck-tessdata-${langs.join('-')}`));

  const created = await Promise.all(
    Array.from({ length: count }, () => createWorker(languages, OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none' })),
  );
  for (const w of created) {
    // Auto page segmentation copes with letterheads, columns and tables; keep spaces so columns stay apart.
    await w.setParameters({
      tessedit_pageseg_mode: PSM.AUTO,
      preserve_interword_spaces: '1',
      user_defined_dpi: '200',
      thresholding_method: THRESHOLDING.page,
      debug_file: '/dev/null',
    } as Parameters<Worker['setParameters']>[0]);
  }
  // A pool rather than tesseract.js's scheduler: a job sets its worker's binarisation before it reads.
  const idle: Array<{ worker: Worker; kind: 'page' | 'photo' }> = created.map((worker) => ({ worker, kind: 'page' }));
  const waiting: Array<(w: (typeof idle)[number]) => void> = [];
  const take = (): Promise<(typeof idle)[number]> =>
    idle.length ? Promise.resolve(idle.pop()!) : new Promise((resolve) => waiting.push(resolve));
  const give = (w: (typeof idle)[number]): void => {
    const next = waiting.shift();
    if (next) next(w);
    else idle.push(w);
  };

  return {
    async recognize(image: Buffer, options: RecognizeOptions = {}): Promise<OcrResult> {
      const kind = options.photo ? 'photo' : 'page';
      const w = await take();
      let result: RecognizeResult;
      try {
        if (w.kind !== kind) {
          await w.worker.setParameters({ thresholding_method: THRESHOLDING[kind] } as Parameters<Worker['setParameters']>[0]);
          w.kind = kind;
        }
        result = await w.worker.recognize(image, {}, { blocks: true, text: false });
      } finally {
        give(w);
      }
      const tessLines = (result.data.blocks ?? []).flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
      const skew = pageSkew(tessLines);
      const boxes: WordBox[] = [];
      let confSum = 0;
      let long = 0;
      let tall = 0;
      for (const line of tessLines) {
        const height = Math.max(1, line.rowAttributes?.rowHeight || line.bbox.y1 - line.bbox.y0);
        const { x0, y0, x1, y1 } = line.baseline ?? { x0: line.bbox.x0, y0: line.bbox.y1, x1: line.bbox.x1, y1: line.bbox.y1 };
        const slope = x1 > x0 ? (y1 - y0) / (x1 - x0) : 0;
        const ruled = line.words.some((w) => RULE_DEBRIS.test(w.text.trim()));
        for (const word of line.words) {
          // A rule's debris glued to a word ("_Provinzial") is no part of it: no word of a policy starts or ends with "_".
          const text = word.text.trim().replace(/^_+|_+$/g, '');
          if (!text || RULE_DEBRIS.test(text)) continue;
          const floor = ruled && (text.match(/[\p{L}\d]/gu)?.length ?? 0) >= 4 ? MIN_WORD_CONFIDENCE_BY_RULE : MIN_WORD_CONFIDENCE;
          if (word.confidence < floor) continue;
          confSum += word.confidence;
          if (word.text.trim().length >= 4) {
            long++;
            if (word.bbox.y1 - word.bbox.y0 > word.bbox.x1 - word.bbox.x0) tall++;
          }
          // Baseline under the word, then undo the page's skew so label and value columns of a
          // slightly rotated scan land on one line.
          const y = y0 + (word.bbox.x0 - x0) * slope - skew * word.bbox.x0;
          boxes.push({ text, x0: word.bbox.x0, x1: word.bbox.x1, y, height: height * 0.75 });
        }
      }
      return {
        lines: linesFromBoxes(boxes),
        confidence: boxes.length ? confSum / boxes.length / 100 : 0,
        words: boxes.length,
        sideways: long ? tall / long : 0,
      };
    },
    async terminate(): Promise<void> {
      await Promise.all(created.map((w) => w.terminate()));
    },
  };
}
