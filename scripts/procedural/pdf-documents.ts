/**
 * The procedural PDF generator: from a seed, a document (pdf-layouts.ts: a layout, a language, fields and
 * distractors) and one real-world technicality applied to it with the functions of technicalities/ (a text layer
 * that lies, a fillable form, a turned page, letter-spaced labels, a flattened form, a scan with an OCR layer,
 * text as outlines, other fonts and small print, a cover letter first, owner-password encryption, a scan, a photo
 * sent as an image), each document with its ground truth and the technicality (and variant) it carries.
 *
 * Seeds split into train and validation by a hash of the seed, so a ranker trained on one split is measured on
 * the other whatever range of seeds either run draws.
 */
import type { TCountry, TLanguage } from '../../shared/packs/index.js';
import type { Field } from '../extract-eval/compare.js';
import { fax } from '../scan-effects.js';
import { COUNTRY_OF } from './document-lines.js';
import { chance, pick, prng, type Rand } from '../random.js';
import {
  coverLetter,
  DRAWN_LAYOUTS,
  drawnPolicy,
  linesPolicy,
  NEGATIVE_KINDS,
  negativePage,
  POLICY_KINDS,
  type LaidOutDocument,
} from './pdf-layouts.js';
import {
  asImageFile,
  asScanWithOcrLayer,
  drawAsFillableForm,
  drawPlain,
  drawWithLyingFont,
  encryptWithOwnerPassword,
  flattenForm,
  imagesAsPdf,
  LIES,
  scanPages,
  turnPages,
  letterSpaceLabels,
  drawAsOutlines,
  drawStyled,
  type Drawing,
  type FontFamily,
} from './technicalities/index.js';

/** The technicalities, as the extraction eval reports them. */
export const TECHNICALITIES = [
  'none',
  'broken_text_layer',
  'acroform',
  'rotated',
  'letter_spaced',
  'flattened_form',
  'ocr_layer',
  'vector_outlines',
  'fonts',
  'multi_page',
  'encrypted',
  'scan',
  'photo_upload',
] as const;
export type Technicality = (typeof TECHNICALITIES)[number];

/** Technicalities that need the values and labels marked (a form's fields, a font lying only for the values, labels spaced out). */
const NEEDS_MARKS = new Set<Technicality>(['acroform', 'flattened_form', 'letter_spaced']);
/** Technicalities whose document arrives as page images (the text-vs-scan split of the eval). */
export const SCANNED = new Set<Technicality>(['ocr_layer', 'scan', 'photo_upload']);
/** Technicalities the reader can only read by OCR, or (an OCR layer over a photo) sometimes does. */
export const NEEDS_OCR = new Set<Technicality>(['broken_text_layer', 'vector_outlines', 'ocr_layer', 'scan', 'photo_upload']);

/**
 * Changes whenever the generator draws any seed differently: a folder's documents made by another version are made
 * again (write-corpus.ts), so a kept folder never mixes generators.
 */
export const GENERATOR_VERSION = 3;

export type Split = 'train' | 'validation';

/** A fifth of the seeds are validation seeds, by a hash of the seed (so neighbouring seeds mix). */
export function splitOf(seed: number): Split {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) % 5 === 0 ? 'validation' : 'train';
}

/** The first `count` seeds of `split` from `from` on. */
export function seedsOf(split: Split | 'all', count: number, from = 1): number[] {
  const out: number[] = [];
  for (let s = from; out.length < count; s++) if (split === 'all' || splitOf(s) === split) out.push(s);
  return out;
}

export interface ProceduralDocument {
  seed: number;
  split: Split;
  technicality: Technicality;
  /** Which form of the technicality ("shifted-tounicode/values", "rotate-270", "photo"). */
  variant: string;
  layout: string;
  language: TLanguage;
  country: TCountry;
  /** True when the document arrives as page images. */
  scanned: boolean;
  negative?: string;
  truth: Partial<Record<Field, string>>;
  drawing: Drawing;
}

export interface ProceduralOptions {
  /** Apply this technicality (else one is drawn from the seed). */
  technicality?: Technicality;
  /** Share of documents that are no policy at all (invoices, bank statements, letters); 0.08 unless given. */
  negatives?: number;
}

/** Draws the document of `seed`: its layout, content and technicality; the bytes come from renderProcedural. */
export function proceduralDocument(seed: number, options: ProceduralOptions = {}): ProceduralDocument {
  // Separate streams: forcing a technicality leaves the content of the seed as it was.
  const rt = prng(seed * 2_654_435 + 17);
  const rc = prng(seed * 40_503 + 101);
  const drawnTechnicality = pick(rt, TECHNICALITIES);
  const technicality = options.technicality ?? drawnTechnicality;
  let laid: LaidOutDocument;
  if (!NEEDS_MARKS.has(technicality) && chance(rc, options.negatives ?? 0.08)) laid = negativePage(rc, seed, pick(rc, NEGATIVE_KINDS));
  else if (!NEEDS_MARKS.has(technicality) && chance(rc, 0.3)) laid = linesPolicy(rc, seed, pick(rc, POLICY_KINDS));
  else laid = drawnPolicy(rc, pick(rc, ['en', 'de', 'fr'] as const), pick(rc, DRAWN_LAYOUTS));
  const variant = variantOf(rt, technicality, laid);
  let drawing = laid.drawing;
  if (technicality === 'letter_spaced') {
    const [wordGap, upper] = variant.split('/');
    drawing = letterSpaceLabels(drawing, {
      tracking: 0.25 + rt() * 0.35,
      wordGap: wordGap as 'cell' | 'space',
      upperCase: upper === 'upper',
    });
  }
  if (technicality === 'multi_page')
    drawing = { pages: [{ width: 595, height: 842, texts: coverLetter(rc, laid.language) }, ...drawing.pages] };
  if (variant === 'landscape') drawing = landscape(drawing);
  return {
    seed,
    split: splitOf(seed),
    technicality,
    variant,
    layout: laid.layout,
    language: laid.language,
    country: COUNTRY_OF[laid.language],
    scanned: SCANNED.has(technicality),
    ...(laid.negative ? { negative: laid.negative } : {}),
    truth: { ...laid.truth } as Partial<Record<Field, string>>,
    drawing,
  };
}

function variantOf(r: Rand, t: Technicality, laid: LaidOutDocument): string {
  switch (t) {
    case 'broken_text_layer':
      return `${pick(r, LIES)}/${laid.marked && chance(r, 0.3) ? 'values' : 'all'}`;
    case 'acroform':
      return `${pick(r, ['meaningful', 'generic'])}/${pick(r, ['generated', 'none'])}`;
    case 'rotated':
      return pick(r, ['rotate-90', 'rotate-180', 'rotate-270', 'sideways', 'landscape']);
    case 'letter_spaced':
      return `${pick(r, ['cell', 'space'])}/${pick(r, ['upper', 'as-printed'])}`;
    case 'ocr_layer':
      return pick(r, ['flatbed', 'flatbed', 'photo']);
    case 'fonts':
      return `${pick(r, ['helvetica', 'times', 'courier'] as const)}/${pick(r, ['7pt', 'normal'])}/${pick(r, ['dark-headings', 'plain'])}`;
    case 'encrypted':
      return pick(r, ['rc4-128', 'aes-128', 'aes-256']);
    case 'scan':
      return pick(r, ['flatbed', 'photo', 'fax', 'turned-90', 'turned-180', 'turned-270']);
    case 'photo_upload':
      return `${pick(r, ['jpeg', 'png'])}/${pick(r, ['photo', 'photo', 'turned-90'])}`;
    default:
      return t;
  }
}

/** Every page set on a landscape sheet (842 x 595), its lines brought closer so they fit, stored as portrait with /Rotate. */
function landscape(drawing: Drawing): Drawing {
  return {
    pages: drawing.pages.map((p) => {
      const ys = p.texts.map((t) => t.y);
      const [lo, hi] = [Math.min(...ys), Math.max(...ys)];
      const fit = (y: number): number => (hi === lo ? 300 : 30 + ((y - lo) * (560 - 30)) / (hi - lo));
      return { width: p.height, height: p.width, texts: p.texts.map((t) => ({ ...t, y: Math.round(fit(t.y) * 10) / 10 })) };
    }),
  };
}

const TESSERACT: Record<TLanguage, string> = { en: 'eng', de: 'deu', fr: 'fra' };

export interface RenderedDocument {
  bytes: Uint8Array;
  /** File extension: a PDF, or the photo a person sends. */
  ext: 'pdf' | 'jpg' | 'png';
}

/** The document's bytes as they arrive: the drawing with its technicality applied. */
export async function renderProcedural(doc: ProceduralDocument): Promise<RenderedDocument> {
  const { drawing, variant, seed } = doc;
  const pdf = (bytes: Uint8Array): RenderedDocument => ({ bytes, ext: 'pdf' });
  switch (doc.technicality) {
    case 'broken_text_layer': {
      const [lie, scope] = variant.split('/');
      return pdf(await drawWithLyingFont(drawing, lie as (typeof LIES)[number], scope as 'all' | 'values'));
    }
    case 'acroform': {
      const [names, appearances] = variant.split('/');
      return pdf(
        await drawAsFillableForm(drawing, { names: names as 'meaningful' | 'generic', appearances: appearances as 'generated' | 'none' }),
      );
    }
    case 'flattened_form':
      return pdf(await flattenForm(await drawAsFillableForm(drawing)));
    case 'rotated': {
      const plain = await drawPlain(drawing);
      if (variant === 'sideways') return pdf(await turnPages(plain, 90, 'sideways'));
      if (variant === 'landscape') return pdf(await turnPages(plain, 90));
      return pdf(await turnPages(plain, Number(variant.slice(7)) as 90 | 180 | 270));
    }
    case 'ocr_layer':
      return pdf(
        await asScanWithOcrLayer(await drawPlain(drawing), {
          languages: TESSERACT[doc.language],
          ...(variant === 'photo' ? { photoSeed: seed } : {}),
        }),
      );
    case 'vector_outlines':
      return pdf(await drawAsOutlines(drawing));
    case 'fonts': {
      const [family, size, headings] = variant.split('/');
      return pdf(
        await drawStyled(drawing, {
          family: family as FontFamily,
          scale: size === '7pt' ? 0.72 : 1,
          darkHeadings: headings === 'dark-headings',
        }),
      );
    }
    case 'encrypted':
      return pdf(await encryptWithOwnerPassword(await drawPlain(drawing), variant as 'rc4-128' | 'aes-128' | 'aes-256'));
    case 'scan': {
      const plain = await drawPlain(drawing);
      if (variant === 'fax') {
        const pages = await scanPages(plain, { dpi: 200 });
        return pdf(
          await imagesAsPdf(
            pages.map((p) => fax(p, prng(seed))),
            200,
          ),
        );
      }
      const turn = variant.startsWith('turned-') ? (Number(variant.slice(7)) as 90 | 180 | 270) : 0;
      return pdf(await imagesAsPdf(await scanPages(plain, { turns: [turn], ...(variant === 'photo' ? { photoSeed: seed } : {}) })));
    }
    case 'photo_upload': {
      const [format, how] = variant.split('/');
      const options = how === 'photo' ? { photoSeed: seed } : { turns: [90 as const] };
      const bytes = await asImageFile(await drawPlain(drawing), format as 'jpeg' | 'png', options);
      return { bytes, ext: format === 'png' ? 'png' : 'jpg' };
    }
    default:
      // none, letter_spaced and multi_page are in the drawing itself.
      return pdf(await drawPlain(drawing));
  }
}
