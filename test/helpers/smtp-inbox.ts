/**
 * A real SMTP server on loopback (smtp-server) that keeps every message it is given, for the suites whose
 * connector sends mail (the key portal's links, watch digests): what went to whom, as sent.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpInbox {
  /** For COVERCHECK_SMTP_URL. */
  url: string;
  /** Every message accepted, in order: its recipients (comma-joined) and its raw text. */
  mails: { to: string; raw: string }[];
  close(): Promise<void>;
}

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const mails: SmtpInbox['mails'] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (raw += c));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    mails,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
