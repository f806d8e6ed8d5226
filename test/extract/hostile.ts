/**
 * Hostile PDFs for the extraction limits, written byte by byte: each is small on the wire and
 * expensive to read without a budget.
 */
import zlib from 'node:zlib';

/**
 * A PDF from numbered object bodies (object i + 1 is `objects[i]`, string or bytes) with a correct
 * cross-reference table, so pdf.js reads it as written rather than reconstructing it.
 */
export function pdfFromObjects(objects: (string | Buffer)[], root = 1): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n`,
    '0000000000 65535 f \n',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root ${root} 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** A stream object body: `dict` (without the brackets) plus Length, then the data. */
export function streamObject(dict: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/**
 * zlib data that inflates to `bytes` zero bytes (rounded up to whole MiB), built from one compressed
 * MiB repeated: each copy is a complete set of deflate blocks ending on a byte boundary with no back
 * reference outside itself, so the copies concatenate into one valid stream without compressing
 * gigabytes here. Deflate's best ratio is ~1030:1, so 3 MB of it holds ~3 GB.
 */
export function zerosDeflated(bytes: number): Buffer {
  const mib = 1 << 20;
  const copies = Math.ceil(bytes / mib);
  const block = zlib.deflateRawSync(Buffer.alloc(mib), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const end = zlib.deflateRawSync(Buffer.alloc(0)); // an empty final block
  // Adler-32 of n zero bytes: a stays 1, b is n (mod 65521).
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((copies * mib) % 65521) * 65536 + 1);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array<Buffer>(copies).fill(block), end, adler]);
}

/** `pages` blank pages of `size` x `size` pt, all sharing one page object as pdf.js allows (a few hundred bytes). */
export function hugeBlankPages(pages = 20, size = 5000): Buffer {
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array(pages).fill('3 0 R').join(' ')}] /Count ${pages} >>`,
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${size} ${size}] >>`,
  ]);
}

/** One A4 page whose content stream inflates to `decodedBytes` bytes of nothing (default ~3 GB from ~3 MB). */
export function flateBomb(decodedBytes = 3 * 1024 ** 3): Buffer {
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>',
    streamObject('/Filter /FlateDecode', zerosDeflated(decodedBytes)),
  ]);
}

/** One A4 page painting a `width` x `height` 8-bit grey image whose Flate data is all zeros (default 40,000 x 40,000). */
export function hugeImage(width = 40_000, height = 40_000): Buffer {
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>',
    streamObject('', Buffer.from('q 595 0 0 842 0 0 cm /Im0 Do Q', 'latin1')),
    streamObject(
      `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`,
      zerosDeflated(width * height),
    ),
  ]);
}

/** A page tree whose Pages node lists itself as its own kid. */
export function circularPageTree(): Buffer {
  return pdfFromObjects(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R] /Count 1 >>']);
}

/**
 * One text show of `words` words in 20 KB or so: a 14 MB string that the reader splits into words, each a
 * JS string and a box in the thread's heap. (Two million separate one-line shows did not grow a lean
 * thread's heap past 64 MB: the reader keeps little per line, only the thread's own modules had filled it.)
 */
export function longTextShow(words = 2_000_000): Buffer {
  const content = zlib.deflateSync(Buffer.from(`BT /F1 10 Tf 20 800 Td\n(${'Policy '.repeat(words)}) Tj\nET`, 'latin1'));
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    streamObject('/Filter /FlateDecode', content),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}
