/**
 * Floors per PDF technicality: a known simple policy (test/helpers/simple-policies.ts) drawn with each
 * technicality of scripts/procedural/technicalities/ and read back through extractFields, reading and
 * fields together, with the real OCR where a page needs it. Each value read must be the policy's own;
 * a value read from a text layer that lies is never returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import type { InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { createOcr, type Ocr } from '../../connector/src/extract/reading/ocr.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { normalisePolicyNumber } from '../../connector/src/verify/normalise.js';
import {
  asScannedPdf,
  asScanWithOcrLayer,
  drawAsFillableForm,
  drawPlain,
  drawWithLyingFont,
  encryptWithOwnerPassword,
  flattenForm,
  imagesAsPdf,
  scanPages,
  turnPages,
  type Lie,
} from '../../scripts/procedural/technicalities/index.js';
import {
  DE_MOTOR,
  EXTRACTED,
  FR_TRAVEL,
  landscape,
  SIMPLE_POLICIES,
  UK_MOTOR,
  withCoverLetter,
  type SimplePolicy,
} from '../helpers/simple-policies.js';
import { shippedMatcher } from './helpers.js';

let matcher: InsurerMatcher;
let ocr: Ocr;
/** Counts the OCR passes, so a test can say a page was (or was not) read by OCR. */
let passes = 0;
const counted: Ocr = { recognize: (image) => (passes++, ocr.recognize(image)), terminate: () => Promise.resolve() };

beforeAll(async () => {
  matcher = await shippedMatcher();
  ocr = await createOcr({ workers: 1 });
});
afterAll(async () => {
  await ocr.terminate();
});

interface ReadBack {
  right: number;
  total: number;
  /** Fields returned with a value other than the policy's. */
  wrong: string[];
  fields: Record<string, unknown>;
  ocrPages: number;
}

async function readBack(pdf: Uint8Array, policy: SimplePolicy): Promise<ReadBack> {
  const r = await extractFields(pdf, { ocr: counted, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
  const fields = r.fields as Record<string, unknown>;
  let right = 0;
  let total = 0;
  const wrong: string[] = [];
  for (const f of EXTRACTED) {
    const want = policy.truth[f];
    const got = fields[f];
    if (want) total++;
    if (got === undefined) continue;
    const same =
      typeof got === 'string' &&
      want &&
      (f === 'policy_number' ? normalisePolicyNumber(got) === normalisePolicyNumber(want) : got === want);
    if (same) right++;
    else wrong.push(`${f}=${String(got)}`);
  }
  return { right, total, wrong, fields, ocrPages: r.ocrPages };
}

/** Every field of every policy right: what each technicality's floor is unless said otherwise. */
async function expectAllRight(build: (p: SimplePolicy) => Promise<Uint8Array>, policies = SIMPLE_POLICIES): Promise<ReadBack[]> {
  const out: ReadBack[] = [];
  for (const p of policies) {
    const r = await readBack(await build(p), p);
    expect({ policy: p.name, right: r.right, wrong: r.wrong }, JSON.stringify(r.fields)).toEqual({
      policy: p.name,
      right: r.total,
      wrong: [],
    });
    out.push(r);
  }
  return out;
}

describe('text layers that lie: the page is read by OCR instead', () => {
  const cases: Array<[Lie, SimplePolicy, 'all' | 'values']> = [
    ['identity-h-no-tounicode', UK_MOTOR, 'all'],
    ['shifted-tounicode', DE_MOTOR, 'all'],
    ['custom-encoding', FR_TRAVEL, 'all'],
    ['type3-private-names', UK_MOTOR, 'all'],
    // Labels true, values lying: only the values' font is wrong, and a crop's OCR says so.
    ['shifted-tounicode', FR_TRAVEL, 'values'],
  ];
  it.each(cases.map(([lie, policy, scope]) => [lie, policy.name, scope, policy] as const))(
    '%s (%s, %s)',
    async (lie, _name, scope, policy) => {
      const [r] = await expectAllRight((p) => drawWithLyingFont(p.drawing, lie, scope), [policy]);
      expect(r!.ocrPages).toBe(1);
    },
    180_000,
  );
});

describe('fillable forms: values that live only in the fields', () => {
  it('with field names that say what they hold and appearance streams', async () => {
    await expectAllRight((p) => drawAsFillableForm(p.drawing));
  }, 60_000);
  it('with names that say nothing (Text3, fill_4) and no appearance streams (NeedAppearances)', async () => {
    passes = 0;
    await expectAllRight((p) => drawAsFillableForm(p.drawing, { names: 'generic', appearances: 'none' }));
    expect(passes).toBe(0);
  }, 60_000);
  it('flattened: the values drawn in form XObjects after the labels, a comb field character by character', async () => {
    await expectAllRight(async (p) => flattenForm(await drawAsFillableForm(p.drawing)));
  }, 60_000);
});

describe('turned pages: read as shown', () => {
  it.each([90, 180, 270] as const)(
    'stored turned %i degrees, /Rotate showing it upright',
    async (turn) => {
      await expectAllRight(async (p) => turnPages(await drawPlain(p.drawing), turn));
    },
    60_000,
  );
  it('built on its side: the content turned by its matrix, no /Rotate', async () => {
    await expectAllRight(async (p) => turnPages(await drawPlain(p.drawing), 90, 'sideways'));
  }, 60_000);
  it('a landscape page stored as a portrait one with /Rotate 90', async () => {
    await expectAllRight(async (p) => turnPages(await drawPlain(landscape(p)), 90));
  }, 60_000);
  it('a two-page scan (cover letter, then the policy) with every sheet turned on the glass', async () => {
    await expectAllRight(async (p) => asScannedPdf(await drawPlain(withCoverLetter(p)), { turns: [90, 270] }), [DE_MOTOR]);
  }, 240_000);
});

describe('photos of a multi-page pack', () => {
  it('four phone photos stored at a point per pixel, every sheet on its side: all read, inside the pixel budget', async () => {
    const pack = async (p: SimplePolicy): Promise<Uint8Array> => {
      const letter = withCoverLetter(p).pages[0]!;
      const photos = await scanPages(await drawPlain({ pages: [letter, letter, letter, ...p.drawing.pages] }), {
        dpi: 300,
        turns: [90],
        photoSeed: 5,
      });
      return imagesAsPdf(photos, 72);
    };
    await expectAllRight(pack, [DE_MOTOR]);
  }, 300_000);
});

describe('encrypted with an owner password only', () => {
  it.each([
    ['rc4-128', UK_MOTOR],
    ['aes-128', DE_MOTOR],
    ['aes-256', FR_TRAVEL],
  ] as const)(
    '%s',
    async (cipher, policy: SimplePolicy) => {
      await expectAllRight(async (p) => encryptWithOwnerPassword(await drawPlain(p.drawing), cipher), [policy]);
    },
    60_000,
  );
});

describe("scans carrying an OCR engine's invisible text layer", () => {
  it('a flatbed scan: the layer is read as text, no OCR of our own', async () => {
    const [r] = await expectAllRight(async (p) => asScanWithOcrLayer(await drawPlain(p.drawing), { languages: 'eng' }), [UK_MOTOR]);
    expect(r!.ocrPages).toBe(0);
  }, 180_000);
  it("a phone photo: the layer's lines run at a slant, so the photo is straightened and read again", async () => {
    const [r] = await expectAllRight(
      async (p) => asScanWithOcrLayer(await drawPlain(p.drawing), { languages: 'eng', photoSeed: 3 }),
      [DE_MOTOR],
    );
    expect(r!.ocrPages).toBe(1);
  }, 180_000);
});
