/**
 * Encrypts a hand-built PDF with the Standard security handler (ISO 32000-2, 7.6.4), as a writer
 * would: RC4 40-bit (V1 R2), AES-128 (V4 R4, AESV2) or AES-256 (V5 R6, AESV3), with an owner
 * password and an empty user password (any reader opens it) or a user password (it asks for one).
 * The cryptography is scripts/pdf-security.ts's; this writer rewrites the bytes itself rather than
 * going through pdf-lib, which would re-write (and repair) the hostile structures it is given.
 *
 * Input: a PDF as test/helpers/nested-forms.ts's writePdf writes it without object streams
 * (`N 0 obj ... endobj`, a classic xref, no strings in dictionaries). Every stream is encrypted and
 * the file re-written with /Encrypt and /ID in its trailer. Keys and IVs come from `random`
 * (crypto.randomBytes unless given), so a caller can make the same bytes on every run.
 */
import crypto from 'node:crypto';
import { standardSecurity, type EncryptEntries, type Random } from '../../scripts/pdf-security.js';

export type EncryptionScheme = 'rc4-40' | 'aes-128' | 'aes-256';

/** Every permission bit set (print, modify, copy, annotate, fill, extract, assemble, high-quality print). */
const P = -4;

const hex = (b: Buffer) => `<${b.toString('hex')}>`;

/** The /Encrypt dictionary as this writer spells it. */
function encryptDictionary(e: EncryptEntries): string {
  const filter = e.cryptFilter
    ? `/CF << /StdCF << /CFM /${e.cryptFilter.CFM} /AuthEvent /DocOpen /Length ${e.cryptFilter.Length} >> >> /StmF /StdCF /StrF /StdCF `
    : '';
  const r6 = e.r6 ? ` /OE ${hex(e.r6.OE)} /UE ${hex(e.r6.UE)} /Perms ${hex(e.r6.Perms)}` : '';
  return `<< /Filter /Standard /V ${e.V} /R ${e.R} /Length ${e.Length} ${filter}/O ${hex(e.O)} /U ${hex(e.U)}${r6} /P ${e.P} >>`;
}

/**
 * `pdf` encrypted with `scheme`: the owner password `owner`, the user password `user` ('' for a file
 * any reader opens, as most "protected" PDFs in the wild are, restricting only editing or printing).
 */
export function encryptPdf(pdf: Buffer, scheme: EncryptionScheme, opts: { owner?: string; user?: string; random?: Random } = {}): Buffer {
  const owner = opts.owner ?? 'owner-secret';
  const user = opts.user ?? '';
  const random = opts.random ?? crypto.randomBytes;
  const id = crypto.createHash('md5').update(pdf).digest();
  const security = standardSecurity(scheme, { owner, user, permissions: P, id, random });
  const text = pdf.toString('latin1');
  const root = /\/Root (\d+) 0 R/.exec(text.slice(text.lastIndexOf('trailer')))?.[1];
  if (!root || text.includes('/ObjStm')) throw new Error('encryptPdf takes a classic-xref PDF from writePdf, without object streams');
  const objects = new Map<number, Buffer>();
  for (const m of text.matchAll(/(\d+) 0 obj\n([\s\S]*?)\nendobj\n/g)) {
    const num = Number(m[1]);
    const body = m[2]!;
    const stream = /^(<<[\s\S]*?)\/Length (\d+) >>\nstream\n/.exec(body);
    const dict = stream ? stream[1]! : body;
    if (/[()]/.test(dict)) throw new Error(`object ${num} has a string in its dictionary, which encryptPdf does not encrypt`);
    if (!stream) {
      objects.set(num, Buffer.from(body, 'latin1'));
      continue;
    }
    const data = Buffer.from(body.slice(stream[0].length, stream[0].length + Number(stream[2])), 'latin1');
    const sealed = security.forObject(num)(data);
    objects.set(
      num,
      Buffer.concat([Buffer.from(`${dict}/Length ${sealed.length} >>\nstream\n`, 'latin1'), sealed, Buffer.from('\nendstream', 'latin1')]),
    );
  }
  const encryptNum = Math.max(...objects.keys()) + 1;
  objects.set(encryptNum, Buffer.from(encryptDictionary(security.entries), 'latin1'));
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  for (let num = 1; num <= encryptNum; num++) {
    const body = objects.get(num);
    if (!body) throw new Error(`object ${num} is missing`);
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${num} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(chunk);
    offset += chunk.length;
  }
  const xref = `xref\n0 ${encryptNum + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  const trailer = `trailer\n<< /Size ${encryptNum + 1} /Root ${root} 0 R /Encrypt ${encryptNum} 0 R /ID [${hex(id)} ${hex(id)}] >>\nstartxref\n${offset}\n%%EOF\n`;
  parts.push(Buffer.from(xref + trailer, 'latin1'));
  return Buffer.concat(parts);
}
