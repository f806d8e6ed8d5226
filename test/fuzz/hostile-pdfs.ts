/**
 * Small PDFs built to cost a reader far more than their size: huge page boxes,
 * a flate bomb, a circular page tree, huge image dimensions, and a few broken ones;
 * form XObjects nested to a million draws, JBIG2 and JPEG 2000 images whose own headers claim far
 * more than their dictionaries, and encrypted files (RC4 40-bit, AES-128 and AES-256 with an owner
 * password only, AES-256 with a user password, and the nested forms encrypted, which the early
 * fan-out count cannot read). The fuzz uploads them to every route that takes a document; what
 * extraction does with them is the extraction process's budget, what the HTTP server does with
 * them must stay cheap.
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { PDFDocument, PDFName, PDFNumber } from 'pdf-lib';
import { nestedForms, writePdf } from '../helpers/nested-forms.js';
import { encryptPdf } from './encrypt-pdf.js';

/** A PDF from numbered object bodies, with a correct cross-reference table. */
function handBuilt(objects: string[], root = 1): Buffer {
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${root} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** 20 pages of 5000 x 5000 pt at UserUnit 75 (20 blank 5000-pt pages fit in 455 bytes). */
async function hugePages(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < 20; i++) {
    const page = doc.addPage([5000, 5000]);
    page.node.set(PDFName.of('UserUnit'), PDFNumber.of(75));
  }
  return Buffer.from(await doc.save({ useObjectStreams: true }));
}

/** One page whose content is 40 streams each inflating to 64 MB of spaces (2.5 GB in ~2.6 MB). */
async function flateBomb(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const bomb = zlib.deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
  const refs = Array.from({ length: 40 }, () =>
    doc.context.register(doc.context.stream(bomb, { Filter: 'FlateDecode', Length: bomb.length })),
  );
  page.node.set(PDFName.of('Contents'), doc.context.obj(refs));
  return Buffer.from(await doc.save());
}

/** A page drawing one 40,000 x 40,000 grey image whose data is a few bytes. */
async function hugeImage(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const data = zlib.deflateSync(Buffer.alloc(1024, 0x80));
  const image = doc.context.register(
    doc.context.stream(data, {
      Type: 'XObject',
      Subtype: 'Image',
      Width: 40_000,
      Height: 40_000,
      ColorSpace: 'DeviceGray',
      BitsPerComponent: 8,
      Filter: 'FlateDecode',
    }),
  );
  page.node.set(PDFName.of('Resources'), doc.context.obj({ XObject: { Im1: image } }));
  const content = doc.context.register(doc.context.stream('q 600 0 0 780 6 6 cm /Im1 Do Q'));
  page.node.set(PDFName.of('Contents'), content);
  return Buffer.from(await doc.save());
}

const circular = handBuilt([
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
  '<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>',
]);
const selfParent = handBuilt(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 1000000 >>']);
const deepArrays = handBuilt([
  '<< /Type /Catalog /Pages 2 0 R >>',
  `<< /Type /Pages /Kids [] /Count 0 /X ${'['.repeat(100_000)}${']'.repeat(100_000)} >>`,
]);
const hugeCount = handBuilt([
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 2147483647 >>',
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1e30 1e30] >>',
]);

/** One page of text in the standard Helvetica, with nothing in a dictionary that encryption would have to reach. */
export function textPage(
  lines: string[] = ['Certificate of Motor Insurance', 'Policy number: UKM-1000-0001', 'Insurer: Albion Demo Motor Insurance Limited'],
): Buffer {
  const text = lines.map((l, i) => `${i === 0 ? '' : '0 -18 Td '}(${l.replace(/[()\\]/g, '\\$&')}) Tj`).join('\n');
  return writePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    { dict: '/Filter /FlateDecode', data: zlib.deflateSync(Buffer.from(`BT /F1 12 Tf 72 760 Td\n${text}\nET\n`, 'latin1')) },
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/**
 * A page drawing one 200 x 200 image XObject whose data is `data` under `filter` (and `extra` in its
 * dictionary). The page is small: without text it is drawn for OCR, where the image is decoded, and
 * a small page keeps the OCR of what is left short.
 */
function imagePage(filter: string, data: Buffer, extra = '', more: (string | { dict: string; data: Buffer })[] = []): Buffer {
  return writePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>',
    { dict: '', data: Buffer.from('q 200 0 0 200 0 0 cm /Im1 Do Q\n', 'latin1') },
    { dict: `/Type /XObject /Subtype /Image /Width 200 /Height 200 ${extra} /Filter /${filter}`, data },
    ...more,
  ]);
}

/** A JBIG2 segment header (ISO 14492, 7.2.2): number, type, no referred segments, page 1, data length. */
function jbig2Segment(number: number, type: number, data: Buffer): Buffer {
  const head = Buffer.alloc(11);
  head.writeUInt32BE(number, 0);
  head.writeUInt8(type, 4);
  head.writeUInt8(0, 5);
  head.writeUInt8(1, 6);
  head.writeUInt32BE(data.length, 7);
  return Buffer.concat([head, data]);
}

/**
 * A JBIG2 image of 200 x 200 in its dictionary whose page information segment claims 60,000 x
 * 60,000 pixels, white by default (450 MB to fill), then an immediate generic region of garbage; its
 * /JBIG2Globals are garbage too. The dictionary passes every size check; the decoder meets the claim.
 */
function jbig2Huge(): Buffer {
  const info = Buffer.alloc(19);
  info.writeUInt32BE(60_000, 0);
  info.writeUInt32BE(60_000, 4);
  info.writeUInt8(0b0000_0100, 16); // default pixel value 1
  const region = Buffer.concat([
    Buffer.from([0, 0, 0xea, 0x60, 0, 0, 0xea, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    Buffer.from([0]),
    Buffer.from([3, 0xff, 0xfd, 0xff, 2, 0xfe, 0xfe, 0xfe]),
    seededBytes('jbig2 region', 64),
  ]);
  const stream = Buffer.concat([jbig2Segment(0, 48, info), jbig2Segment(1, 38, region), jbig2Segment(2, 49, Buffer.alloc(0))]);
  return imagePage('JBIG2Decode', stream, '/BitsPerComponent 1 /ColorSpace /DeviceGray /DecodeParms << /JBIG2Globals 6 0 R >>', [
    { dict: '', data: seededBytes('jbig2 globals', 256) },
  ]);
}

/**
 * A JPEG 2000 codestream cut after its main header: SOC, then SIZ claiming 60,000 x 60,000 pixels in
 * 3 components (10.8 GB decoded) for an image of 200 x 200 in its dictionary, then COD, and no tile.
 */
function jpxTruncated(): Buffer {
  const siz = Buffer.alloc(49);
  siz.writeUInt16BE(0xff51, 0);
  siz.writeUInt16BE(47, 2); // Lsiz: 38 + 3 x 3
  siz.writeUInt16BE(0, 4); // Rsiz
  for (const [at, v] of [
    [6, 60_000],
    [10, 60_000],
    [14, 0],
    [18, 0],
    [22, 60_000],
    [26, 60_000],
    [30, 0],
    [34, 0],
  ] as const)
    siz.writeUInt32BE(v, at);
  siz.writeUInt16BE(3, 38);
  for (let c = 0; c < 3; c++) siz.set([7, 1, 1], 40 + 3 * c);
  const cod = Buffer.from([0xff, 0x52, 0, 12, 0, 0, 0, 1, 0, 5, 4, 4, 0, 0]);
  return imagePage('JPXDecode', Buffer.concat([Buffer.from([0xff, 0x4f]), siz, cod]));
}

export type HostilePdfName =
  | 'hugePages'
  | 'flateBomb'
  | 'hugeImage'
  | 'circular'
  | 'selfParent'
  | 'deepArrays'
  | 'hugeCount'
  | 'truncated'
  | 'noXref'
  | 'headerOnly'
  | 'nestedForms'
  | 'nestedFormsObjStm'
  | 'nestedFormsCycle'
  | 'jbig2Garbage'
  | 'jbig2Huge'
  | 'jpxGarbage'
  | 'jpxTruncated'
  | 'encryptedRc4'
  | 'encryptedAes128'
  | 'encryptedAes256'
  | 'encryptedUserPassword'
  | 'encryptedNestedForms';
export const HOSTILE_PDF_NAMES: readonly HostilePdfName[] = [
  'hugePages',
  'flateBomb',
  'hugeImage',
  'circular',
  'selfParent',
  'deepArrays',
  'hugeCount',
  'truncated',
  'noXref',
  'headerOnly',
  'nestedForms',
  'nestedFormsObjStm',
  'nestedFormsCycle',
  'jbig2Garbage',
  'jbig2Huge',
  'jpxGarbage',
  'jpxTruncated',
  'encryptedRc4',
  'encryptedAes128',
  'encryptedAes256',
  'encryptedUserPassword',
  'encryptedNestedForms',
];

/** `n` bytes that look random and are the same on every run (a failure must replay): SHA-256 in counter mode over `label`. */
export function seededBytes(label: string, n: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; out.length * 32 < n; i++) out.push(crypto.createHash('sha256').update(`${label}:${i}`).digest());
  return Buffer.concat(out).subarray(0, n);
}
const seeded = (label: string) => {
  let i = 0;
  return (n: number) => seededBytes(`${label}:${i++}`, n);
};

/** Builds them all (about a second: the bomb deflates 64 MB once), the same bytes on every run. */
export async function buildHostilePdfs(): Promise<Record<HostilePdfName, Buffer>> {
  const pages = await hugePages();
  return {
    hugePages: pages,
    flateBomb: await flateBomb(),
    hugeImage: await hugeImage(),
    circular,
    selfParent,
    deepArrays,
    hugeCount,
    truncated: pages.subarray(0, Math.floor(pages.length / 2)),
    noXref: Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n'),
    headerOnly: Buffer.from('%PDF-'),
    nestedForms: nestedForms(),
    nestedFormsObjStm: nestedForms({ resources: 'objstm' }),
    nestedFormsCycle: nestedForms({ cycle: true }),
    jbig2Garbage: imagePage('JBIG2Decode', seededBytes('jbig2', 2048), '/BitsPerComponent 1 /ColorSpace /DeviceGray'),
    jbig2Huge: jbig2Huge(),
    jpxGarbage: imagePage('JPXDecode', seededBytes('jpx', 2048)),
    jpxTruncated: jpxTruncated(),
    encryptedRc4: encryptPdf(textPage(), 'rc4-40', { random: seeded('rc4') }),
    encryptedAes128: encryptPdf(textPage(), 'aes-128', { random: seeded('aes-128') }),
    encryptedAes256: encryptPdf(textPage(), 'aes-256', { random: seeded('aes-256') }),
    encryptedUserPassword: encryptPdf(textPage(), 'aes-256', { user: 'user-secret', random: seeded('user') }),
    encryptedNestedForms: encryptPdf(nestedForms(), 'aes-128', { random: seeded('forms') }),
  };
}
