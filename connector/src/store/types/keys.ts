/** Storage of API keys: the record, what creating one takes, and the key store's methods. */

import type { TPlan, TScope } from '../../../../shared/account.js';

export type KeyMode = 'live' | 'test';
export type KeyStatus = 'active' | 'revoked' | 'deactivated';

export interface ApiKeyRecord {
  id: string;
  /** Public, non-secret part of the key used to find the row; the secret is only ever hashed. */
  lookup: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  name: string;
  email: string | null;
  mode: KeyMode;
  plan: TPlan;
  scopes: TScope[];
  status: KeyStatus;
  /** Credits granted at the start of every billing period. */
  allowance: number;
  /** Credits left in `period`. */
  balance: number;
  /** Billing period the balance belongs to (YYYY-MM, UTC). */
  period: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Signs this key's webhook deliveries (Standard Webhooks `whsec_...`); shown once, at creation. */
  webhook_secret: string | null;
}

export interface NewApiKey {
  id: string;
  lookup: string;
  hash: string;
  name: string;
  email?: string | null;
  mode: KeyMode;
  plan: TPlan;
  scopes: TScope[];
  allowance: number;
  period: string;
  created_at: string;
  webhook_secret?: string | null;
}

export interface KeyStore {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByLookup(lookup: string): Promise<ApiKeyRecord | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  revoke(id: string, at: string): Promise<boolean>;
  touch(id: string, at: string): Promise<void>;
  setWebhookSecret(id: string, secret: string): Promise<void>;
}
