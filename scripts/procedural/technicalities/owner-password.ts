/**
 * Encryption with an owner password only: anyone may open the file (the user password is empty), but its
 * strings and streams are encrypted and its permissions restrict printing or copying, as banks and insurers
 * send statements. pdf-lib cannot encrypt: it walks and re-writes the objects here, and scripts/pdf-security.ts
 * does the Standard security handler's cryptography (RC4 128-bit V2 R3, AES-128 V4 R4, AES-256 V5 R6).
 */
import { randomBytes } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFRawStream, PDFString, type PDFObject } from 'pdf-lib';
import { standardSecurity, type EncryptEntries, type Random } from '../../pdf-security.js';

export type Cipher = 'rc4-128' | 'aes-128' | 'aes-256';

/** Print only: no copying, no changes (bits 3 and 12 of /P set, the rest of the low twelve clear). */
const PERMISSIONS = -3904;

/**
 * `pdf` encrypted with `cipher` under `ownerPassword`, openable without a password. `random` draws the
 * file identifier, keys and IVs (crypto.randomBytes unless given), so a test can make the same bytes twice.
 */
export async function encryptWithOwnerPassword(
  pdf: Uint8Array,
  cipher: Cipher,
  ownerPassword = 'owner-secret',
  random: Random = randomBytes,
): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  const id = random(16);
  const security = standardSecurity(cipher, { owner: ownerPassword, user: '', permissions: PERMISSIONS, id, random });
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    const encrypt = security.forObject(ref.objectNumber, ref.generationNumber);
    if (object instanceof PDFRawStream) {
      encryptStrings(object.dict, encrypt);
      doc.context.assign(ref, PDFRawStream.of(object.dict, encrypt(Buffer.from(object.contents))));
    } else {
      doc.context.assign(ref, encryptStrings(object, encrypt));
    }
  }
  const encryptDict = doc.context.register(doc.context.obj(dictionary(security.entries) as Parameters<typeof doc.context.obj>[0]));
  doc.context.trailerInfo.Encrypt = encryptDict;
  doc.context.trailerInfo.ID = doc.context.obj([PDFHexString.of(id.toString('hex')), PDFHexString.of(id.toString('hex'))]);
  return doc.save({ useObjectStreams: false, addDefaultPage: false, updateFieldAppearances: false });
}

/** Every string inside `object` encrypted in place (dictionaries and arrays walked); the object returned. */
function encryptStrings(object: PDFObject, encrypt: (data: Buffer) => Buffer): PDFObject {
  const seal = (o: PDFObject): PDFObject => {
    if (o instanceof PDFString || o instanceof PDFHexString) return PDFHexString.of(encrypt(Buffer.from(o.asBytes())).toString('hex'));
    if (o instanceof PDFDict) for (const [k, v] of o.entries()) o.set(k, seal(v));
    if (o instanceof PDFArray) for (let i = 0; i < o.size(); i++) o.set(i, seal(o.get(i)));
    return o;
  };
  return seal(object);
}

/** The /Encrypt dictionary as pdf-lib's `context.obj` takes it: strings become names, hex strings stay strings. */
function dictionary(e: EncryptEntries): Record<string, unknown> {
  const hexOf = (b: Buffer): PDFHexString => PDFHexString.of(b.toString('hex'));
  return {
    Filter: 'Standard',
    V: e.V,
    R: e.R,
    Length: e.Length,
    ...(e.cryptFilter
      ? { CF: { StdCF: { AuthEvent: 'DocOpen', CFM: e.cryptFilter.CFM, Length: e.cryptFilter.Length } }, StmF: 'StdCF', StrF: 'StdCF' }
      : {}),
    O: hexOf(e.O),
    U: hexOf(e.U),
    ...(e.r6 ? { OE: hexOf(e.r6.OE), UE: hexOf(e.r6.UE), Perms: hexOf(e.r6.Perms) } : {}),
    P: e.P,
  };
}
