/**
 * The Standard security handler's two writers, with fixed randomness: test/fuzz/encrypt-pdf.ts (rewrites
 * hand-built bytes, for the fuzz suite's hostile files) and scripts/procedural/technicalities/owner-password.ts
 * (encrypts through pdf-lib, for the procedural corpus). Each scheme's output has a known SHA-256, so a
 * change to the cryptography they share that alters one byte fails here; pdf.js opens each file as the
 * connector does and reads its text back, so the known bytes are bytes a reader decrypts.
 */
import crypto from 'node:crypto';
import { getDocument, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { openPdf } from '../../connector/src/extract/reading/open-pdf.js';
import { encryptWithOwnerPassword, drawPlain, type Cipher } from '../../scripts/procedural/technicalities/index.js';
import { encryptPdf, type EncryptionScheme } from '../fuzz/encrypt-pdf.js';
import { textPage } from '../fuzz/hostile-pdfs.js';
import { nestedForms } from '../helpers/nested-forms.js';
import { UK_MOTOR } from '../helpers/simple-policies.js';

/** The same bytes on every run: SHA-256 of the label and a counter, as test/fuzz/hostile-pdfs.ts seeds its files. */
function seeded(label: string): (n: number) => Buffer {
  let call = 0;
  return (n) => {
    const out: Buffer[] = [];
    for (let i = 0; out.length * 32 < n; i++) out.push(crypto.createHash('sha256').update(`${label}:${call}:${i}`).digest());
    call++;
    return Buffer.concat(out).subarray(0, n);
  };
}

const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

async function text(doc: PDFDocumentProxy): Promise<string> {
  const out: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    out.push(content.items.map((i) => ('str' in i ? i.str : '')).join(' '));
  }
  return out.join('\n');
}

/** Opened as pdf.js opens it in the connector, except with `password` (pdf.js accepts the user or the owner password). */
async function openWithPassword(pdf: Uint8Array, password: string): Promise<PDFDocumentProxy> {
  return getDocument({
    data: new Uint8Array(pdf),
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
    password,
  }).promise;
}

describe('test/fuzz/encrypt-pdf.ts', () => {
  const cases: { name: string; scheme: EncryptionScheme; user?: string; pdf: () => Buffer; sha256: string }[] = [
    {
      name: 'RC4 40-bit (V1 R2)',
      scheme: 'rc4-40',
      pdf: () => textPage(),
      sha256: '38051e440c42a26280c02984615ecc18ece95db3f5666efbd0e679e53e4e9479',
    },
    {
      name: 'AES-128 (V4 R4)',
      scheme: 'aes-128',
      pdf: () => textPage(),
      sha256: '3bf2b0809e7a57e19bb23a63664dae07e217e2c660457108af95024b4da6b53e',
    },
    {
      name: 'AES-256 (V5 R6)',
      scheme: 'aes-256',
      pdf: () => textPage(),
      sha256: '0bfd52d1a4c8183385fc3be5b495993e7a85203b04fb1a813fb042e5afe2b72e',
    },
    {
      name: 'RC4 40-bit with a user password',
      scheme: 'rc4-40',
      user: 'user-secret',
      pdf: () => textPage(),
      sha256: '780e9c8e6421d652f99d506e738d1cb270fa89dd4e82863ee54cdeac00a0c91d',
    },
    {
      name: 'AES-128 with a user password',
      scheme: 'aes-128',
      user: 'user-secret',
      pdf: () => textPage(),
      sha256: '53227ce5e8c3f19fe79b480d3fb1dbe5caa51b2e67958b542bddaf1c1f355e92',
    },
    {
      name: 'AES-256 with a user password',
      scheme: 'aes-256',
      user: 'user-secret',
      pdf: () => textPage(),
      sha256: '7ff316476a3bf52360da5c948abb7fdd3d0dd4cfb838aa3c93d55cb8b5fcf1b8',
    },
    {
      name: 'AES-128, nested forms',
      scheme: 'aes-128',
      pdf: () => nestedForms({ depth: 2, fanout: 2 }),
      sha256: 'e0001bbbf470d99d607b0ec2d85f4cc57888aa9c7df2caed0c1f6df660d0d804',
    },
  ];
  for (const c of cases) {
    it(`${c.name}: the known bytes, which pdf.js opens and reads`, async () => {
      const pdf = encryptPdf(c.pdf(), c.scheme, { user: c.user, random: seeded(c.name) });
      expect(sha256(pdf)).toBe(c.sha256);
      if (c.user) {
        await expect(openPdf(pdf, EXTRACT_LIMIT_DEFAULTS)).rejects.toMatchObject({ code: 'encrypted_pdf' });
        for (const password of [c.user, 'owner-secret']) {
          const doc = await openWithPassword(pdf, password);
          expect(await text(doc), password).toContain('Policy number: UKM-1000-0001');
          await doc.destroy();
        }
        return;
      }
      const doc = await openPdf(pdf, EXTRACT_LIMIT_DEFAULTS);
      // The nested forms draw squares, no text: that they open (the stream lengths and the /Encrypt read) is what they show.
      if (c.name.includes('nested')) expect(doc.numPages).toBe(1);
      else expect(await text(doc)).toContain('Policy number: UKM-1000-0001');
      await doc.destroy();
    });
  }
});

describe('scripts/procedural/technicalities/owner-password.ts', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const cases: { cipher: Cipher; sha256: string }[] = [
    { cipher: 'rc4-128', sha256: '4035c0e27e85844d2dd995666f08591619ac915578c6fee116aebca0feb1fecf' },
    { cipher: 'aes-128', sha256: 'c88b53b77c9c55aac1b1e3b30299e7515fcdaeeea9c60e2124165a301853da74' },
    { cipher: 'aes-256', sha256: 'a2efac3b1eafc2ec5acd212ca60894494669c26ee5bc8b2026a375269430c235' },
  ];
  for (const c of cases) {
    it(`${c.cipher}: the known bytes, which pdf.js opens and reads, strings and streams`, async () => {
      // pdf-lib dates the document it creates and loads; a fixed clock makes its bytes the same on every run.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-01-02T03:04:05Z'));
      const pdf = await encryptWithOwnerPassword(await drawPlain(UK_MOTOR.drawing), c.cipher, 'owner-secret', seeded(c.cipher));
      vi.useRealTimers();
      expect(sha256(pdf)).toBe(c.sha256);
      const doc = await openPdf(pdf, EXTRACT_LIMIT_DEFAULTS);
      expect(await text(doc)).toContain('PN-4471-902315');
      // The Info dictionary's strings are encrypted too (only streams are, in the fuzz writer's files).
      expect((await doc.getMetadata()).info).toMatchObject({ Producer: expect.stringContaining('pdf-lib') });
      await doc.destroy();
      const owner = await openWithPassword(pdf, 'owner-secret');
      expect(await text(owner)).toContain('PN-4471-902315');
      await owner.destroy();
    });
  }
});
