/** A self-signed certificate for HTTPS test servers on loopback, and its PEM written where a connector can trust it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import selfsigned from 'selfsigned';

export interface TestCert {
  key: string;
  cert: string;
  /** The certificate as a file, for COVERCHECK_WEBHOOK_CA_FILE. */
  caFile: string;
  remove(): void;
}

/** Valid for localhost and 127.0.0.1, plus any extra DNS names. */
export async function makeTestCert(extraNames: string[] = []): Promise<TestCert> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2 as const, value: 'localhost' },
          ...extraNames.map((value) => ({ type: 2 as const, value })),
          { type: 7 as const, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-cert-'));
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, pems.cert);
  return { key: pems.private, cert: pems.cert, caFile, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
