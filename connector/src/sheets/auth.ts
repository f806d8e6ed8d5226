/**
 * Service-account authentication for the Sheets API (the JWT bearer flow of google-auth-library).
 * The token endpoint is the key file's own `token_uri`: Google's for a real key; a key made for a
 * test names a local endpoint, so the real client code runs against it unchanged.
 */
import fs from 'node:fs';
import { google } from 'googleapis';
import { z } from 'zod';
import { DEFAULT_TIMEOUT_MS } from './api.js';

const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';

const ZServiceAccount = z.object({
  type: z.literal('service_account'),
  client_email: z.string().email(),
  private_key: z.string().includes('PRIVATE KEY'),
  token_uri: z.url().optional(),
});
export type ServiceAccount = z.infer<typeof ZServiceAccount>;

export function readServiceAccount(file: string): ServiceAccount {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`GOOGLE_APPLICATION_CREDENTIALS: ${file} is not a readable JSON key file (${(err as Error).message})`);
  }
  const parsed = ZServiceAccount.safeParse(json);
  if (!parsed.success)
    throw new Error(`GOOGLE_APPLICATION_CREDENTIALS: ${file} is not a service-account key (${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

/** `timeoutMs`: the token request's deadline (the API calls get theirs from SheetsApi). */
export function serviceAccountAuth(account: ServiceAccount, timeoutMs = DEFAULT_TIMEOUT_MS) {
  const jwt = new google.auth.JWT({ email: account.client_email, key: account.private_key, scopes: [SHEETS_SCOPE] });
  const tokenUri = account.token_uri;
  // gtoken posts to Google's token URL through this client's transporter, with no deadline of its own:
  // give it one, and send it where the key says. Interceptors run after gaxios turned `timeout` into a
  // signal, so the signal is set here; a plain timeout signal, never composed (connector/src/deadline.ts).
  jwt.transporter.interceptors.request.add({
    resolved: async (config) => {
      if (String(config.url) === GOOGLE_TOKEN_URL) {
        config.signal ??= AbortSignal.timeout(timeoutMs);
        if (tokenUri && tokenUri !== GOOGLE_TOKEN_URL) config.url = new URL(tokenUri);
      }
      return config;
    },
  });
  return jwt;
}
