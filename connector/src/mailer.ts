/**
 * Sends the connector's mails (today the key portal's activation links) with nodemailer: over SMTP when COVERCHECK_SMTP_URL is set, otherwise
 * (the embedded default) written as .eml files to the outbox folder, whose path is logged.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from './logger.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** A Message-ID of our own, kept across retries so that a receiver can tell a repeat (a watch digest's). */
  messageId?: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export function createMailer(opts: { smtpUrl: string | undefined; from: string; outbox: string; logger: Logger }): Mailer {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(mail) {
        const info = await transport.sendMail({ from: opts.from, ...mail });
        opts.logger.info({ message_id: info.messageId }, 'portal mail sent over SMTP');
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail({ from: opts.from, ...mail });
      await fs.mkdir(opts.outbox, { recursive: true });
      const file = path.resolve(opts.outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomUUID().slice(0, 8)}.eml`);
      // 0600: the file holds a live activation link.
      await fs.writeFile(file, info.message as Buffer, { mode: 0o600 });
      opts.logger.info({ file }, 'portal mail written to the outbox (no SMTP configured)');
    },
    close: () => transport.close(),
  };
}
