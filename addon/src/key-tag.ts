/**
 * A short tag of an API key: what the add-on records about a key where it must tell keys apart
 * (result cache, binding records) without storing the key or anything it could be read back from.
 */

/** 12 characters (72 bits) of the key's SHA-256, web-safe base64: stable per key, distinct across keys. */
export function keyTag(key: string): string {
  const d = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, key, Utilities.Charset.UTF_8);
  return Utilities.base64EncodeWebSafe(d).slice(0, 12);
}
