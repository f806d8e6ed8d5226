/**
 * Small PDFs built to cost a reader far more than their size (issue 17, item 4): huge page boxes,
 * a flate bomb, a circular page tree, huge image dimensions, and a few broken ones. The fuzz
 * uploads them to every route that takes a document; what extraction does with them is the
 * extraction process's budget, what the HTTP server does with them must stay cheap.
 */
import zlib from 'node:zlib';
import { PDFDocument, PDFName, PDFNumber } from 'pdf-lib';

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

/** 20 pages of 5000 x 5000 pt at UserUnit 75 (issue 17's repro was 20 blank 5000-pt pages in 455 bytes). */
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
  const refs = Array.from({ length: 40 }, () => doc.context.register(doc.context.stream(bomb, { Filter: 'FlateDecode', Length: bomb.length })));
  page.node.set(PDFName.of('Contents'), doc.context.obj(refs));
  return Buffer.from(await doc.save());
}

/** A page drawing one 40,000 x 40,000 grey image whose data is a few bytes. */
async function hugeImage(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const data = zlib.deflateSync(Buffer.alloc(1024, 0x80));
  const image = doc.context.register(doc.context.stream(data, { Type: 'XObject', Subtype: 'Image', Width: 40_000, Height: 40_000, ColorSpace: 'DeviceGray', BitsPerComponent: 8, Filter: 'FlateDecode' }));
  page.node.set(PDFName.of('Resources'), doc.context.obj({ XObject: { Im1: image } }));
  const content = doc.context.register(doc.context.stream('q 600 0 0 780 6 6 cm /Im1 Do Q'));
  page.node.set(PDFName.of('Contents'), content);
  return Buffer.from(await doc.save());
}

const circular = handBuilt(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>']);
const selfParent = handBuilt(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 1000000 >>']);
const deepArrays = handBuilt(['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [] /Count 0 /X ${'['.repeat(100_000)}${']'.repeat(100_000)} >>`]);
const hugeCount = handBuilt(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 2147483647 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1e30 1e30] >>']);

export type HostilePdfName = 'hugePages' | 'flateBomb' | 'hugeImage' | 'circular' | 'selfParent' | 'deepArrays' | 'hugeCount' | 'truncated' | 'noXref' | 'headerOnly';
export const HOSTILE_PDF_NAMES: readonly HostilePdfName[] = ['hugePages', 'flateBomb', 'hugeImage', 'circular', 'selfParent', 'deepArrays', 'hugeCount', 'truncated', 'noXref', 'headerOnly'];

/** Builds them all (about a second: the bomb deflates 64 MB once). */
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
  };
}
