/**
 * The Standard security handler's cryptography (ISO 32000-2, 7.6.4), for the writers that make encrypted
 * PDFs to test readers with: the /Encrypt dictionary's values and the encryption of each string and stream.
 * How a file is parsed and written stays with each writer (test/fuzz/encrypt-pdf.ts rewrites hand-built
 * bytes, scripts/procedural/technicalities/owner-password.ts goes through pdf-lib).
 */
import { createCipheriv, createHash } from 'node:crypto';

/** RC4 40-bit (V1 R2), RC4 128-bit (V2 R3), AES-128 (V4 R4, AESV2), AES-256 (V5 R6, AESV3). */
export type SecurityScheme = 'rc4-40' | 'rc4-128' | 'aes-128' | 'aes-256';

/** Random bytes: the keys, salts and IVs are drawn from it, so a caller can make the same file twice. */
export type Random = (n: number) => Buffer;

export interface SecurityOptions {
  /** The owner password; '' takes the user password, as Algorithm 3 says. */
  owner: string;
  /** The user password: '' for a file any reader opens. */
  user: string;
  /** /P: the permission bits, as a signed 32-bit integer. */
  permissions: number;
  /** The first element of the trailer's /ID, which the MD5 revisions (2 to 4) mix into the file key. */
  id: Buffer;
  random: Random;
}

/** The /Encrypt dictionary's values; each writer spells the dictionary out itself. */
export interface EncryptEntries {
  V: 1 | 2 | 4 | 5;
  R: 2 | 3 | 4 | 6;
  /** The file key's length in bits. */
  Length: 40 | 128 | 256;
  /** AES only: the method and key length (bytes) of the crypt filter /StdCF, which /StmF and /StrF name. */
  cryptFilter?: { CFM: 'AESV2' | 'AESV3'; Length: 16 | 32 };
  O: Buffer;
  U: Buffer;
  /** Revision 6: the file key wrapped under the owner's and the user's hashes, and the encrypted permissions. */
  r6?: { OE: Buffer; UE: Buffer; Perms: Buffer };
  P: number;
}

export interface StandardSecurity {
  entries: EncryptEntries;
  /** The encryption of object `num` (generation `gen`) for its strings and its stream: RC4, or a random IV then AES-CBC. */
  forObject(num: number, gen?: number): (data: Buffer) => Buffer;
}

/** The handler for `scheme` with the passwords and permissions of `options`. */
export function standardSecurity(scheme: SecurityScheme, options: SecurityOptions): StandardSecurity {
  return scheme === 'aes-256' ? revision6(options) : md5Revision(scheme, options);
}

/** Algorithm 2's padding string. */
const PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');
const padded = (password: string): Buffer => Buffer.concat([Buffer.from(password, 'latin1'), PADDING]).subarray(0, 32);
const md5 = (...parts: Buffer[]): Buffer => createHash('md5').update(Buffer.concat(parts)).digest();

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

/** AES-CBC with `iv`, or AES-ECB without; PKCS#7 padding when `padding`. */
function aes(bits: 128 | 256, key: Buffer, data: Buffer, iv: Buffer | null, padding: boolean): Buffer {
  const cipher = createCipheriv(iv ? `aes-${bits}-cbc` : `aes-${bits}-ecb`, key, iv);
  cipher.setAutoPadding(padding);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

/** A string or stream as AES-CBC encrypts it in a PDF: a fresh IV, then the padded ciphertext. */
function aesWithIv(bits: 128 | 256, key: Buffer, data: Buffer, random: Random): Buffer {
  const iv = random(16);
  return Buffer.concat([iv, aes(bits, key, data, iv, true)]);
}

const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
};

/** Revisions 2 to 4: the file key from MD5 of the padded user password, O, P and the ID (Algorithms 2, 3, 4 and 5). */
function md5Revision(
  scheme: 'rc4-40' | 'rc4-128' | 'aes-128',
  { owner, user, permissions, id, random }: SecurityOptions,
): StandardSecurity {
  const revision = scheme === 'rc4-40' ? 2 : scheme === 'rc4-128' ? 3 : 4;
  const length = scheme === 'rc4-40' ? 5 : 16;
  // Algorithm 3: O.
  let ownerKey = md5(padded(owner || user));
  if (revision >= 3) for (let i = 0; i < 50; i++) ownerKey = md5(ownerKey);
  const o = rc4Passes(ownerKey.subarray(0, length), padded(user), revision);
  // Algorithm 2: the file key.
  let fileKey = md5(padded(user), o, int32(permissions), id).subarray(0, length);
  if (revision >= 3) for (let i = 0; i < 50; i++) fileKey = md5(fileKey).subarray(0, length);
  // Algorithms 4 and 5: U.
  const u = revision === 2 ? rc4(fileKey, PADDING) : Buffer.concat([rc4Passes(fileKey, md5(PADDING, id), revision), Buffer.alloc(16)]);
  const isAes = scheme === 'aes-128';
  return {
    entries: {
      V: revision === 2 ? 1 : revision === 3 ? 2 : 4,
      R: revision,
      Length: length === 5 ? 40 : 128,
      ...(isAes ? { cryptFilter: { CFM: 'AESV2', Length: 16 } as const } : {}),
      O: o,
      U: u,
      P: permissions,
    },
    forObject(num, gen = 0) {
      // Algorithm 1: the object's key from the file key, the low bytes of its number and generation, and for AES "sAlT".
      const n = Buffer.alloc(5);
      n.writeUIntLE(num & 0xffffff, 0, 3);
      n.writeUInt16LE(gen & 0xffff, 3);
      const key = md5(fileKey, n, isAes ? Buffer.from('sAlT', 'latin1') : Buffer.alloc(0)).subarray(0, Math.min(length + 5, 16));
      return (data) => (isAes ? aesWithIv(128, key, data, random) : rc4(key, data));
    },
  };
}

/** Revision 6: a random file key, wrapped under hashes of the passwords (Algorithms 8, 9 and 10); one key for every object. */
function revision6({ owner, user, permissions, random }: SecurityOptions): StandardSecurity {
  const fileKey = random(32);
  // Passwords are UTF-8, at most 127 bytes (7.6.4.3.3).
  const userPw = Buffer.from(user, 'utf8').subarray(0, 127);
  const ownerPw = Buffer.from(owner || user, 'utf8').subarray(0, 127);
  const [uValidation, uKey, oValidation, oKey] = [random(8), random(8), random(8), random(8)];
  const wrap = (key: Buffer): Buffer => aes(256, key, fileKey, Buffer.alloc(16), false);
  const u = Buffer.concat([hash2B(userPw, uValidation, Buffer.alloc(0)), uValidation, uKey]);
  const ue = wrap(hash2B(userPw, uKey, Buffer.alloc(0)));
  const o = Buffer.concat([hash2B(ownerPw, oValidation, u), oValidation, oKey]);
  const oe = wrap(hash2B(ownerPw, oKey, u));
  // /Perms: P, four bytes of 0xff, "T" (metadata encrypted too), "adb", four random bytes; AES-256-ECB.
  const perms = aes(256, fileKey, Buffer.concat([int32(permissions), int32(-1), Buffer.from('Tadb', 'latin1'), random(4)]), null, false);
  return {
    entries: {
      V: 5,
      R: 6,
      Length: 256,
      cryptFilter: { CFM: 'AESV3', Length: 32 },
      O: o,
      U: u,
      r6: { OE: oe, UE: ue, Perms: perms },
      P: permissions,
    },
    forObject: () => (data) => aesWithIv(256, fileKey, data, random),
  };
}

/** Algorithm 2.B (R6): the hash of a password with a salt and (for the owner) the U entry. */
function hash2B(password: Buffer, salt: Buffer, udata: Buffer): Buffer {
  let k = createHash('sha256')
    .update(Buffer.concat([password, salt, udata]))
    .digest();
  for (let round = 1; ; round++) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([password, k, udata])));
    const e = aes(128, k.subarray(0, 16), k1, k.subarray(16, 32), false);
    // E's first 16 bytes as a number, mod 3: 256 is 1 mod 3, so the bytes' sum has the same remainder.
    let sum = 0;
    for (let i = 0; i < 16; i++) sum += e[i]!;
    k = createHash(['sha256', 'sha384', 'sha512'][sum % 3]!)
      .update(e)
      .digest();
    // Rounds counted from 1, as pdf.js and qpdf count them: at least 64, then until E's last byte is at most the round - 32.
    if (round >= 64 && e[e.length - 1]! <= round - 32) return k.subarray(0, 32);
  }
}
