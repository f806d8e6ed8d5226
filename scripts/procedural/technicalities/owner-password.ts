/**
 * Encryption with an owner password only: anyone may open the file (the user password is empty), but its
 * strings and streams are encrypted and its permissions restrict printing or copying, as banks and insurers
 * send statements. The Standard security handler, written here since pdf-lib cannot encrypt:
 * RC4 128-bit (V2 R3), AES-128 (V4 R4, AESV2) and AES-256 (V5 R6, AESV3), per ISO 32000-2 7.6.4.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString, type PDFObject, type PDFRef } from 'pdf-lib';

export type Cipher = 'rc4-128' | 'aes-128' | 'aes-256';

/** Print only: no copying, no changes (bits 3 and 12 of /P set, the rest of the low twelve clear). */
const PERMISSIONS = -3904;
const PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

/** `pdf` encrypted with `cipher` under `ownerPassword`, openable without a password. */
export async function encryptWithOwnerPassword(pdf: Uint8Array, cipher: Cipher, ownerPassword = 'owner-secret'): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  const id = randomBytes(16);
  const handler = cipher === 'aes-256' ? aes256(ownerPassword) : md5Handler(cipher, ownerPassword, id);
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    const key = handler.objectKey(ref);
    if (object instanceof PDFRawStream) {
      encryptStrings(object.dict, key, handler.encrypt);
      doc.context.assign(ref, PDFRawStream.of(object.dict, handler.encrypt(key, Buffer.from(object.contents))));
    } else {
      doc.context.assign(ref, encryptStrings(object, key, handler.encrypt));
    }
  }
  const encrypt = doc.context.register(doc.context.obj(handler.dictionary as Parameters<typeof doc.context.obj>[0]));
  doc.context.trailerInfo.Encrypt = encrypt;
  doc.context.trailerInfo.ID = doc.context.obj([PDFHexString.of(id.toString('hex')), PDFHexString.of(id.toString('hex'))]);
  return doc.save({ useObjectStreams: false, addDefaultPage: false, updateFieldAppearances: false });
}

interface Handler {
  dictionary: Record<string, unknown>;
  objectKey(ref: PDFRef): Buffer;
  encrypt(key: Buffer, data: Buffer): Buffer;
}

/** Every string inside `object` encrypted in place (dictionaries and arrays walked); the object returned. */
function encryptStrings(object: PDFObject, key: Buffer, encrypt: Handler['encrypt']): PDFObject {
  const seal = (o: PDFObject): PDFObject => {
    if (o instanceof PDFString || o instanceof PDFHexString) return PDFHexString.of(encrypt(key, Buffer.from(o.asBytes())).toString('hex'));
    if (o instanceof PDFDict) for (const [k, v] of o.entries()) o.set(k, seal(v));
    if (o instanceof PDFArray) for (let i = 0; i < o.size(); i++) o.set(i, seal(o.get(i)));
    return o;
  };
  return seal(object);
}

function md5(...parts: Buffer[]): Buffer {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
}

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

/** RC4 with a key XOR-ed with 1..19 after the first pass (revisions 3 and 4). */
function rc4Twenty(key: Buffer, data: Buffer): Buffer {
  let out = rc4(key, data);
  for (let i = 1; i <= 19; i++) out = rc4(Buffer.from(key.map((b) => b ^ i)), out);
  return out;
}

const padded = (password: string): Buffer => Buffer.concat([Buffer.from(password, 'latin1'), PADDING]).subarray(0, 32);

function aesCbc(bits: 128 | 256, key: Buffer, data: Buffer): Buffer {
  const iv = randomBytes(16);
  const c = createCipheriv(`aes-${bits}-cbc`, key, iv);
  return Buffer.concat([iv, c.update(data), c.final()]);
}

/** Revisions 3 and 4: keys from MD5 (algorithms 2, 3, 5 and 1 of ISO 32000-2 7.6.4). */
function md5Handler(cipher: 'rc4-128' | 'aes-128', ownerPassword: string, id: Buffer): Handler {
  const aes = cipher === 'aes-128';
  let ownerKey = md5(padded(ownerPassword));
  for (let i = 0; i < 50; i++) ownerKey = md5(ownerKey);
  const o = rc4Twenty(ownerKey, padded(''));
  const p = Buffer.alloc(4);
  p.writeInt32LE(PERMISSIONS);
  let fileKey = md5(padded(''), o, p, id);
  for (let i = 0; i < 50; i++) fileKey = md5(fileKey);
  const u = Buffer.concat([rc4Twenty(fileKey, md5(PADDING, id)), Buffer.alloc(16)]);
  const hexOf = (b: Buffer): PDFHexString => PDFHexString.of(b.toString('hex'));
  return {
    dictionary: {
      Filter: 'Standard',
      V: aes ? 4 : 2,
      R: aes ? 4 : 3,
      Length: 128,
      ...(aes ? { CF: { StdCF: { AuthEvent: 'DocOpen', CFM: 'AESV2', Length: 16 } }, StmF: 'StdCF', StrF: 'StdCF' } : {}),
      O: hexOf(o),
      U: hexOf(u),
      P: PERMISSIONS,
    },
    objectKey(ref) {
      const n = Buffer.alloc(5);
      n.writeUIntLE(ref.objectNumber, 0, 3);
      n.writeUInt16LE(ref.generationNumber, 3);
      return md5(fileKey, n, aes ? Buffer.from('sAlT') : Buffer.alloc(0));
    },
    encrypt: (key, data) => (aes ? aesCbc(128, key, data) : rc4(key, data)),
  };
}

/** Revision 6: a random file key, wrapped under hashes of the passwords (algorithms 2.B, 8, 9 and 10). */
function aes256(ownerPassword: string): Handler {
  const fileKey = randomBytes(32);
  const [uValidation, uKey, oValidation, oKey] = [randomBytes(8), randomBytes(8), randomBytes(8), randomBytes(8)];
  const user = Buffer.alloc(0);
  const owner = Buffer.from(ownerPassword, 'utf8').subarray(0, 127);
  const wrap = (key: Buffer): Buffer => {
    const c = createCipheriv('aes-256-cbc', key, Buffer.alloc(16));
    c.setAutoPadding(false);
    return Buffer.concat([c.update(fileKey), c.final()]);
  };
  const u = Buffer.concat([hash2B(user, uValidation, Buffer.alloc(0)), uValidation, uKey]);
  const ue = wrap(hash2B(user, uKey, Buffer.alloc(0)));
  const o = Buffer.concat([hash2B(owner, oValidation, u), oValidation, oKey]);
  const oe = wrap(hash2B(owner, oKey, u));
  const perms = Buffer.alloc(16);
  perms.writeInt32LE(PERMISSIONS, 0);
  perms.writeInt32LE(-1, 4);
  perms.write('Tadb', 8, 'latin1');
  randomBytes(4).copy(perms, 12);
  const ecb = createCipheriv('aes-256-ecb', fileKey, null);
  ecb.setAutoPadding(false);
  const hexOf = (b: Buffer): PDFHexString => PDFHexString.of(b.toString('hex'));
  return {
    dictionary: {
      Filter: 'Standard',
      V: 5,
      R: 6,
      Length: 256,
      CF: { StdCF: { AuthEvent: 'DocOpen', CFM: 'AESV3', Length: 32 } },
      StmF: 'StdCF',
      StrF: 'StdCF',
      O: hexOf(o),
      U: hexOf(u),
      OE: hexOf(oe),
      UE: hexOf(ue),
      Perms: hexOf(Buffer.concat([ecb.update(perms), ecb.final()])),
      P: PERMISSIONS,
    },
    objectKey: () => fileKey,
    encrypt: (key, data) => aesCbc(256, key, data),
  };
}

/** Algorithm 2.B: SHA-256, then rounds of AES-128 and SHA-256/384/512 until the last byte allows stopping. */
function hash2B(password: Buffer, salt: Buffer, userKey: Buffer): Buffer {
  let k = createHash('sha256').update(password).update(salt).update(userKey).digest();
  let e = Buffer.alloc(1);
  for (let round = 0; round < 64 || e[e.length - 1]! > round - 32; round++) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([password, k, userKey])));
    const c = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32));
    c.setAutoPadding(false);
    e = Buffer.concat([c.update(k1), c.final()]);
    const sum = e.subarray(0, 16).reduce((a, b) => a + b, 0) % 3;
    k = createHash(sum === 0 ? 'sha256' : sum === 1 ? 'sha384' : 'sha512')
      .update(e)
      .digest();
  }
  return k.subarray(0, 32);
}
