/**
 * A webhook receiver for tests: a real HTTPS server on loopback (self-signed certificate, trusted by
 * the connector through COVERCHECK_WEBHOOK_CA_FILE) that checks every delivery's Standard Webhooks
 * signature with the current secret and records it.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../shared/webhooks.js';
import { makeTestCert } from './tls.js';

export interface ReceivedWebhook {
  id: string;
  /** The status the receiver answered. */
  status: number;
  verified: boolean;
  /** The parsed body (whether or not the signature verified). */
  event: any;
}

export interface WebhookReceiver {
  /** https://localhost:PORT/hooks */
  url: string;
  caFile: string;
  received: ReceivedWebhook[];
  /** Secret to verify against (the key's `whsec_…`); may change between tests. */
  secret: string;
  /** Answer for the next delivery (default 204). */
  answer: () => number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const tls = await makeTestCert();
  const receiver: WebhookReceiver = {
    url: '',
    caFile: tls.caFile,
    received: [],
    secret: '',
    answer: () => 204,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      tls.remove();
    },
  };
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      let event: unknown;
      try {
        event = verifyWebhook(receiver.secret, req.headers, body);
        verified = true;
      } catch {
        try {
          event = JSON.parse(body);
        } catch {
          event = body;
        }
      }
      const status = receiver.answer();
      receiver.received.push({ id: String(req.headers['webhook-id']), status, verified, event });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver.url = `https://localhost:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
