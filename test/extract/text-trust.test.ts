/**
 * Judging a text layer: the text of a font whose character map is missing or wrong is told from real text by
 * its characters, its words and its letter pairs, cheaply, and a real document's text is never doubted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import type { Ocr } from '../../connector/src/extract/reading/ocr.js';
import { openPdf } from '../../connector/src/extract/reading/open-pdf.js';
import { readDocumentLines } from '../../connector/src/extract/reading/read-document.js';
import { scanStreams } from '../../connector/src/extract/reading/stream-scan.js';
import { linesOfItems, readTextItems } from '../../connector/src/extract/reading/text-layer.js';
import { judgeLayer, judgeText } from '../../connector/src/extract/reading/text-trust.js';
import { drawPlain } from '../../scripts/procedural/technicalities/drawing.js';
import { drawWithLyingFont, LIES } from '../../scripts/procedural/technicalities/lying-fonts.js';
import { SIMPLE_POLICIES } from '../helpers/simple-policies.js';
import { CORPUS_DIR } from './helpers.js';

/** Each font's text on page 1 of `pdf`, as pdf.js reads it. */
async function fontTexts(pdf: Uint8Array): Promise<string[][]> {
  const doc = await openPdf(pdf, EXTRACT_LIMIT_DEFAULTS);
  try {
    const items = await readTextItems(await doc.getPage(1));
    const byFont = new Map<string, string[]>();
    for (const i of items) byFont.set(i.font, [...(byFont.get(i.font) ?? []), i.text]);
    return [...byFont.values()];
  } finally {
    await doc.destroy();
  }
}

const noOcr: Ocr = {
  recognize: () => Promise.reject(new Error('OCR called for a text page')),
  terminate: () => Promise.resolve(),
};

describe('judgeText', () => {
  it('trusts the plain drawing of every simple policy, font by font', async () => {
    for (const p of SIMPLE_POLICIES)
      for (const texts of await fontTexts(await drawPlain(p.drawing))) expect(judgeText(texts).verdict, p.name).toBe('trusted');
  });

  it.each(LIES)('never trusts a font that lies (%s): broken, or doubtful for a crop to settle', async (lie) => {
    for (const p of SIMPLE_POLICIES) {
      const verdicts = (await fontTexts(await drawWithLyingFont(p.drawing, lie))).map((t) => judgeText(t));
      // The regular font carries most of the text: its lie is plain from the text alone.
      expect(
        verdicts.map((v) => v.verdict),
        `${p.name}: ${verdicts.map((v) => v.reason).join('; ')}`,
      ).not.toContain('trusted');
      expect(verdicts.some((v) => v.verdict === 'broken')).toBe(true);
    }
  });

  it('reads characters no document prints as broken, and keeps what real documents print', () => {
    expect(judgeText(['\u0014\u0015\u0003+DUERXU\u00036WUHHW', '7HOHSKRQH\u0003\u0013\u0014\u0014\u0016']).verdict).toBe('broken');
    expect(judgeText(['\uE001\uE002\uE003\uE004 \uE005\uE006\uE007\uE008\uE009\uE00A\uE00B\uE00C']).verdict).toBe('broken');
    expect(judgeText(["!\"#$%&'()*%'+%,%-'.&/0-1&2)'3$*$,)4"]).verdict).toBe('broken');
    // Numbers, dates, amounts, leaders and rules: little to go by, nothing wrong.
    expect(judgeText(['01/03/2026', '£ 1,234.56', 'PN-4471-902315', '..........', '________']).verdict).toBe('trusted');
    expect(
      judgeText(['Versicherungsschein-Nr.', 'Kraftfahrtversicherung', 'Beitrag', 'Versicherungsnehmer', 'Amtliches Kennzeichen']).verdict,
    ).toBe('trusted');
    expect(judgeText(["Date d'effet", "Date d'échéance", 'Numéro de contrat', 'Assuré', 'Souscripteur', 'Garanties']).verdict).toBe(
      'trusted',
    );
  });
});

describe('judgeLayer', () => {
  const items = (font: string, texts: string[]) => texts.map((text) => ({ text, font }));
  const labels = items('F1', ['Policy number', 'Effective date', 'Expiry date', 'Vehicle registration', 'Certificate of Motor Insurance']);

  it('asks OCR about a doubtful font and keeps or drops it by the answer', async () => {
    const values = items('F2', ['QO-5582-013426', 'Ns Kpio Dbsufs', 'LN82 SYU']);
    let asked = 0;
    const yes = await judgeLayer([...labels, ...values], async () => (asked++, true));
    expect([asked, yes.kept.length, yes.unreadable]).toEqual([1, labels.length + values.length, false]);
    const no = await judgeLayer([...labels, ...values], async () => false);
    expect([no.kept.length, no.unreadable]).toEqual([labels.length, true]);
    // OCR reading nothing does not make a doubtful font trusted.
    expect((await judgeLayer([...labels, ...values], async () => null)).unreadable).toBe(true);
  });

  it('asks nothing about a trusted page, and drops a dingbat font without sending the page to OCR', async () => {
    const bullets = items('F3', ['\uF0B7', '\uF0B7', '\uF0B7']);
    const judged = await judgeLayer([...labels, ...bullets], async () => {
      throw new Error('asked');
    });
    expect([judged.kept, judged.unreadable]).toEqual([labels, false]);
  });
});

describe('the own corpus', () => {
  const corpusTextPdfs = (): Array<[string, Buffer]> =>
    readdirSync(CORPUS_DIR)
      .filter((f) => /^\d{3}\.json$/.test(f))
      .map((f) => f.slice(0, 3))
      .filter((id) => JSON.parse(readFileSync(`${CORPUS_DIR}${id}.json`, 'utf8')).kind !== 'scanned')
      .map((id) => [id, readFileSync(`${CORPUS_DIR}${id}.pdf`)]);

  it('reads every text PDF of the corpus from its text layer, without OCR and without a crop check', async () => {
    const pdfs = corpusTextPdfs();
    expect(pdfs.length).toBeGreaterThan(40);
    for (const [id, pdf] of pdfs) {
      const layers: string[] = [];
      const read = await readDocumentLines(pdf, noOcr, { limits: EXTRACT_LIMIT_DEFAULTS, onPage: (p) => layers.push(...(p.layer ?? [])) });
      expect([id, read.ocrPages, layers]).toEqual([id, 0, []]);
    }
  }, 120_000);

  it('judging the layer and reading the form cost little beside reading the text: at most 1.25 times, interleaved', async () => {
    // The bare reading: the same checks, pdf.js text and lines, without judging fonts or asking for widgets.
    // Measured at about 1.04 times; 1.25 leaves room for a loaded machine, while a judgement that OCRed
    // a crop, or did work per character pair, would cost several times the page.
    const bare = async (pdf: Uint8Array): Promise<void> => {
      await scanStreams(pdf, EXTRACT_LIMIT_DEFAULTS);
      const doc = await openPdf(pdf, EXTRACT_LIMIT_DEFAULTS);
      try {
        for (let n = 1; n <= doc.numPages; n++) linesOfItems(await readTextItems(await doc.getPage(n)));
      } finally {
        await doc.destroy();
      }
    };
    const full = (pdf: Uint8Array) => readDocumentLines(pdf, noOcr, { limits: EXTRACT_LIMIT_DEFAULTS });
    const pdfs = corpusTextPdfs().map(([, pdf]) => pdf);
    for (const pdf of pdfs.slice(0, 5)) await Promise.all([bare(pdf), full(pdf)]);
    let bareMs = 0;
    let fullMs = 0;
    for (let round = 0; round < 2; round++) {
      for (const pdf of pdfs) {
        let t = performance.now();
        await bare(pdf);
        bareMs += performance.now() - t;
        t = performance.now();
        await full(pdf);
        fullMs += performance.now() - t;
      }
    }
    expect(fullMs / bareMs).toBeLessThan(1.25);
  }, 120_000);
});
