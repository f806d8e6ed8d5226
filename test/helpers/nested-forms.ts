/**
 * The nested-form bomb (a fan-out of form XObjects), written byte by byte: form XObjects nested `depth` deep,
 * each drawing the next `fanout` times, so that a page of a few hundred bytes of content makes pdf.js
 * draw fanout^depth shapes. Variants place the forms' /Resources where a reader must look for them:
 * in the form's dictionary, in an object of their own, or inside an object stream (which only a
 * cross-reference stream can point into, so that variant is written with one).
 */
import zlib from 'node:zlib';

/** A plain object (`<< ... >>`, `[...]`, a number) or a stream: `dict` without its brackets, plus its data. */
export type PdfObject = string | { dict: string; data: Buffer };

/**
 * A PDF from numbered objects (object i + 1 is `objects[i]`) with a correct cross-reference section.
 * `compressed`: numbers of plain objects to write inside one object stream (/Type /ObjStm), the
 * cross-reference then being a stream (/Type /XRef) as ISO 32000-1, 7.5.8 requires for them.
 */
export function writePdf(objects: PdfObject[], options: { root?: number; compressed?: number[] } = {}): Buffer {
  const root = options.root ?? 1;
  const compressed = new Set(options.compressed ?? []);
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  // Per object: [type, field 2, field 3] of its cross-reference entry (ISO 32000-1, table 18).
  const entries: [number, number, number][] = [[0, 0, 65535]];
  const write = (num: number, body: Buffer) => {
    entries[num] = [1, offset, 0];
    const chunk = Buffer.concat([Buffer.from(`${num} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(chunk);
    offset += chunk.length;
  };
  const streamBody = (dict: string, data: Buffer) =>
    Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);

  objects.forEach((obj, i) => {
    const num = i + 1;
    if (compressed.has(num)) {
      if (typeof obj !== 'string') throw new Error(`object ${num} is a stream; streams cannot sit in an object stream`);
      return;
    }
    write(num, typeof obj === 'string' ? Buffer.from(obj, 'latin1') : streamBody(obj.dict, obj.data));
  });

  if (compressed.size === 0) {
    const xref = [
      `xref\n0 ${objects.length + 1}\n`,
      '0000000000 65535 f \n',
      ...entries.slice(1).map(([, o]) => `${String(o).padStart(10, '0')} 00000 n \n`),
    ].join('');
    parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root ${root} 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
    return Buffer.concat(parts);
  }

  const objStm = objects.length + 1;
  const xrefNum = objects.length + 2;
  const inside = [...compressed].sort((a, b) => a - b);
  let header = '';
  let body = '';
  inside.forEach((num, index) => {
    header += `${num} ${body.length} `;
    body += `${objects[num - 1] as string}\n`;
    entries[num] = [2, objStm, index];
  });
  const content = zlib.deflateSync(Buffer.from(header + body, 'latin1'));
  write(objStm, streamBody(`/Type /ObjStm /N ${inside.length} /First ${header.length} /Filter /FlateDecode`, content));
  entries[xrefNum] = [1, offset, 0];
  const rows = Buffer.alloc(7 * (xrefNum + 1));
  for (let n = 0; n <= xrefNum; n++) {
    const [type, a, b] = entries[n]!;
    rows.writeUInt8(type, 7 * n);
    rows.writeUInt32BE(a, 7 * n + 1);
    rows.writeUInt16BE(b, 7 * n + 5);
  }
  const xrefAt = offset;
  write(xrefNum, streamBody(`/Type /XRef /Size ${xrefNum + 1} /W [1 4 2] /Root ${root} 0 R`, rows));
  parts.push(Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

export interface NestedFormsOptions {
  /** Levels of forms (the 2 KB bomb the tests use: 7). */
  depth?: number;
  /** How many times each form draws the next (10). */
  fanout?: number;
  /**
   * Where each form's /Resources is: `direct` in its dictionary, `indirect` an object of its own
   * (`12 0 obj << /XObject << ... >> >> endobj`), `objstm` such an object inside an object stream
   * (with the page tree and the catalog).
   */
  resources?: 'direct' | 'indirect' | 'objstm';
  /** The last form draws the first instead of a shape: the forms draw themselves without end. */
  cycle?: boolean;
}

/**
 * One A4 page drawing form 1; form k draws form k + 1 `fanout` times; the last form fills a small
 * square (fanout^(depth - 1) squares). Forms are Flate-compressed, as a writer would; none shows text, so the
 * extractor finds no text layer and draws the page for OCR.
 */
export function nestedForms(options: NestedFormsOptions = {}): Buffer {
  const { depth = 7, fanout = 10, resources = 'direct', cycle = false } = options;
  // 1 catalog, 2 pages, 3 page, 4 page content, 5.. forms, then (indirect, objstm) one resources object per form.
  const form = (k: number) => 5 + k;
  const resourcesObj = (k: number) => 5 + depth + k;
  const draws = (name: string) => `q 0.5 0 0 0.5 10 10 cm /${name} Do Q\n`.repeat(fanout);
  const objects: PdfObject[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Fm0 ${form(0)} 0 R >> >> /Contents 4 0 R >>`,
    { dict: '', data: Buffer.from('q /Fm0 Do Q\n', 'latin1') },
  ];
  const extra: string[] = [];
  for (let k = 0; k < depth; k++) {
    const last = k === depth - 1;
    const next = last ? (cycle ? form(0) : null) : form(k + 1);
    const xobjects = next === null ? '<< >>' : `<< /Fm${k + 1} ${next} 0 R >>`;
    const res = `<< /XObject ${xobjects} >>`;
    const content = next === null ? '0 0 1 rg 0 0 20 20 re f\n' : draws(`Fm${k + 1}`);
    const dictRes = resources === 'direct' ? res : `${resourcesObj(k)} 0 R`;
    objects.push({
      dict: `/Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources ${dictRes} /Filter /FlateDecode`,
      data: zlib.deflateSync(Buffer.from(content, 'latin1')),
    });
    extra.push(res);
  }
  if (resources !== 'direct') objects.push(...extra);
  const compressed = resources === 'objstm' ? [1, 2, 3, ...extra.map((_, k) => resourcesObj(k))] : [];
  return writePdf(objects, { compressed });
}
