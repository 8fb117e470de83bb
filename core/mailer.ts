/**
 * Outgoing e-mail (nodemailer over `SMTP_URL`), used to send the one-time credentials link of an
 * approved access request (api-spec.md "System and public": "the secure link to credentials is
 * sent" to the request's e-mail).
 */
import nodemailer from 'nodemailer';
import type { Config } from './config.js';

/** Sends plain-text messages from `MAIL_FROM`. */
export interface Mailer {
  /** Sends one message; rejects when the SMTP server refuses it or cannot be reached. */
  send(to: string, subject: string, text: string): Promise<void>;
}

/**
 * The mailer of `config`, or `undefined` when `SMTP_URL` is not configured (callers then only
 * print what they would have sent).
 */
export function createMailer(config: Config): Mailer | undefined {
  if (!config.SMTP_URL) return undefined;
  // Bounded waits so an unreachable server fails an approval's mail in seconds, not minutes.
  const transport = nodemailer.createTransport({ url: config.SMTP_URL, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    async send(to, subject, text) {
      await transport.sendMail({ from: config.MAIL_FROM, to, subject, text });
    },
  };
}
