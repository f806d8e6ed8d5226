/** Storage of the key portal: e-mail key requests and the unused-key sweep. */

import type { KeyMode } from './keys.js';

/** A pending e-mail key request: the activation link's token is stored only as its SHA-256. */
export interface KeyRequestRecord {
  id: string;
  email: string;
  mode: KeyMode;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  key_id: string | null;
}

export type ConsumeOutcome = { ok: true; request: KeyRequestRecord } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

export interface PortalStore {
  createRequest(r: Omit<KeyRequestRecord, 'used_at' | 'key_id'>): Promise<void>;
  findRequest(tokenHash: string): Promise<KeyRequestRecord | null>;
  /**
   * Marks the request used if it is neither used nor expired at `at`, in one conditional UPDATE, so
   * two concurrent activations of one link can't both succeed.
   */
  consumeRequest(tokenHash: string, at: string): Promise<ConsumeOutcome>;
  /** Records which key an activated request minted. */
  attachKey(requestId: string, keyId: string): Promise<void>;
  /**
   * Deactivates active free-plan keys created before `createdBefore` that were never used
   * (`last_used_at` null), except those named in `exceptNames`. Returns the ids deactivated.
   */
  deactivateUnused(createdBefore: string, at: string, exceptNames: string[]): Promise<string[]>;
}
