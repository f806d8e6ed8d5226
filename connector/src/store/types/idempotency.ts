/** Storage of Idempotency-Key claims and the responses they replay. */

export interface IdempotencyBegin {
  state: 'new' | 'replay' | 'in_progress' | 'mismatch';
  status?: number;
  body?: string;
}

export interface StoredResponse {
  status: number;
  body: string;
}

/** A response to complete an idempotency claim with, written in the same transaction as a charge. */
export interface IdempotentRecord {
  idemKey: string;
  response: StoredResponse;
}

export interface IdempotencyStore {
  /** Claims (keyId, idemKey) for a request with this body hash, or reports what is already there. */
  begin(keyId: string, idemKey: string, requestHash: string, at: string, staleBefore: string): Promise<IdempotencyBegin>;
  complete(keyId: string, idemKey: string, response: StoredResponse, at: string): Promise<void>;
  /** Drops a claim whose response must not be replayed (a transient failure): the client may retry. */
  release(keyId: string, idemKey: string): Promise<void>;
}
