/**
 * Encrypts a hand-built PDF with the Standard security handler (ISO 32000-2, 7.6.4), as a writer
 * would: RC4 40-bit (V1 R2), AES-128 (V4 R4, AESV2) or AES-256 (V5 R6, AESV3), with an owner
 * password and an empty user password (any reader opens it) or a user password (it asks for one).
 * No tool here encrypts PDFs; test/extract/helpers.ts only fakes an /Encrypt that fails its check.
 *
 * Input: a PDF as test/helpers/nested-forms.ts's writePdf writes it without object streams
 * (`N 0 obj ... endobj`, a classic xref, no strings in dictionaries). Every stream is encrypted and
 * the file re-written with /Encrypt and /ID in its trailer. Keys and IVs come from `random`
 * (crypto.randomBytes unless given), so a caller can make the same bytes on every run.
 */
import crypto from 'node:crypto';

export type EncryptionScheme = 'rc4-40' | 'aes-128' | 'aes-256';

/** Algorithm 2's padding string. */
const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');
const md5 = (...parts: Buffer[]) => crypto.createHash('md5').update(Buffer.concat(parts)).digest();
const padded = (password: string) => Buffer.concat([Buffer.from(password, 'latin1'), PAD]).subarray(0, 32);

/** RC4 in a few lines: OpenSSL 3 keeps it in its legacy provider, which node may not load. */
function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

/** RC4 with the key, then (R3 and R4) 19 more passes with each byte of the key XORed with the pass number. */
function rc4Passes(key: Buffer, data: Buffer, revision: number): Buffer {
  let out = rc4(key, data);
  if (revision >= 3) for (let i = 1; i <= 19; i++) out = rc4(Buffer.from(key.map((b) => b ^ i)), out);
  return out;
}

function aes(bits: 128 | 256, key: Buffer, data: Buffer, iv: Buffer | null, padding: boolean): Buffer {
  const cipher = crypto.createCipheriv(iv ? `aes-${bits}-cbc` : `aes-${bits}-ecb`, key, iv);
  cipher.setAutoPadding(padding);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

/** Algorithm 2.B (R6): the hash of a password with a salt and (for the owner) the U entry. */
function hash2B(password: Buffer, salt: Buffer, udata: Buffer): Buffer {
  let k = crypto
    .createHash('sha256')
    .update(Buffer.concat([password, salt, udata]))
    .digest();
  for (let round = 0; ; round++) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([password, k, udata])));
    const e = aes(128, k.subarray(0, 16), k1, k.subarray(16, 32), false);
    let sum = 0;
    for (let i = 0; i < 16; i++) sum += e[i]!;
    k = crypto
      .createHash(['sha256', 'sha384', 'sha512'][sum % 3]!)
      .update(e)
      .digest();
    // Rounds counted from 1, as pdf.js and qpdf count them: at least 64, then until E's last byte is at most the round - 32.
    if (round + 1 >= 64 && e[e.length - 1]! <= round + 1 - 32) return k.subarray(0, 32);
  }
}

interface Security {
  encryptDict: string;
  /** Encrypts one stream's data of object `num`. */
  encrypt(num: number, data: Buffer): Buffer;
}

const hex = (b: Buffer) => `<${b.toString('hex')}>`;
/** Every permission bit set (print, modify, copy, annotate, fill, extract, assemble, high-quality print). */
const P = -4;
const pBytes = () => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(P);
  return b;
};

type Random = (n: number) => Buffer;

function rc4OrAes128(scheme: 'rc4-40' | 'aes-128', owner: string, user: string, id: Buffer, random: Random): Security {
  const revision = scheme === 'rc4-40' ? 2 : 4;
  const length = scheme === 'rc4-40' ? 5 : 16;
  // Algorithm 3: O.
  let ownerKey = md5(padded(owner || user));
  if (revision >= 3) for (let i = 0; i < 50; i++) ownerKey = md5(ownerKey);
  const o = rc4Passes(ownerKey.subarray(0, length), padded(user), revision);
  // Algorithm 2: the file key.
  let fileKey = md5(padded(user), o, pBytes(), id).subarray(0, length);
  if (revision >= 3) for (let i = 0; i < 50; i++) fileKey = md5(fileKey).subarray(0, length);
  // Algorithms 4 and 5: U.
  const u = revision === 2 ? rc4(fileKey, PAD) : Buffer.concat([rc4Passes(fileKey, md5(PAD, id), revision), Buffer.alloc(16)]);
  const objectKey = (num: number, salt: Buffer) => {
    const n = Buffer.from([num & 255, (num >> 8) & 255, (num >> 16) & 255, 0, 0]);
    return md5(fileKey, n, salt).subarray(0, Math.min(length + 5, 16));
  };
  if (scheme === 'rc4-40') {
    return {
      encryptDict: `<< /Filter /Standard /V 1 /R 2 /Length 40 /O ${hex(o)} /U ${hex(u)} /P ${P} >>`,
      encrypt: (num, data) => rc4(objectKey(num, Buffer.alloc(0)), data),
    };
  }
  return {
    encryptDict: `<< /Filter /Standard /V 4 /R 4 /Length 128 /CF << /StdCF << /CFM /AESV2 /AuthEvent /DocOpen /Length 16 >> >> /StmF /StdCF /StrF /StdCF /O ${hex(o)} /U ${hex(u)} /P ${P} >>`,
    encrypt: (num, data) => {
      const iv = random(16);
      return Buffer.concat([iv, aes(128, objectKey(num, Buffer.from('sAlT', 'latin1')), data, iv, true)]);
    },
  };
}

function aes256(owner: string, user: string, random: Random): Security {
  const fileKey = random(32);
  const userPw = Buffer.from(user, 'utf8');
  const ownerPw = Buffer.from(owner || user, 'utf8');
  const [uvs, uks, ovs, oks] = [0, 1, 2, 3].map(() => random(8)) as [Buffer, Buffer, Buffer, Buffer];
  const u = Buffer.concat([hash2B(userPw, uvs, Buffer.alloc(0)), uvs, uks]);
  const ue = aes(256, hash2B(userPw, uks, Buffer.alloc(0)), fileKey, Buffer.alloc(16), false);
  const o = Buffer.concat([hash2B(ownerPw, ovs, u), ovs, oks]);
  const oe = aes(256, hash2B(ownerPw, oks, u), fileKey, Buffer.alloc(16), false);
  const perms = aes(
    256,
    fileKey,
    Buffer.concat([pBytes(), Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from('Tadb', 'latin1'), random(4)]),
    null,
    false,
  );
  return {
    encryptDict: `<< /Filter /Standard /V 5 /R 6 /Length 256 /CF << /StdCF << /CFM /AESV3 /AuthEvent /DocOpen /Length 32 >> >> /StmF /StdCF /StrF /StdCF /O ${hex(o)} /U ${hex(u)} /OE ${hex(oe)} /UE ${hex(ue)} /Perms ${hex(perms)} /P ${P} >>`,
    encrypt: (_num, data) => {
      const iv = random(16);
      return Buffer.concat([iv, aes(256, fileKey, data, iv, true)]);
    },
  };
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
  const security = scheme === 'aes-256' ? aes256(owner, user, random) : rc4OrAes128(scheme, owner, user, id, random);
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
    const sealed = security.encrypt(num, data);
    objects.set(
      num,
      Buffer.concat([Buffer.from(`${dict}/Length ${sealed.length} >>\nstream\n`, 'latin1'), sealed, Buffer.from('\nendstream', 'latin1')]),
    );
  }
  const encryptNum = Math.max(...objects.keys()) + 1;
  objects.set(encryptNum, Buffer.from(security.encryptDict, 'latin1'));
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
