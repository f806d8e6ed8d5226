/**
 * The memory request bodies may take while they are read: one budget for the process, of which each
 * client (its API key, else its address) may hold a share, so that uploads that never finish hold at
 * most the share of whoever sends them (docs/request-limits.md, "Bodies in flight").
 *
 * A body reader covers its body as bytes arrive (or its declared length up front); past the client's
 * share the request is refused with 429, past the whole budget with 503, both with a retry delay. A
 * request's bytes stay reserved until its response ends, however it ends (answered, refused, the
 * client gone, a timeout), since the body read is held until then. Refusing rather than spilling to
 * disk: the readers need the whole body in memory anyway (JSON parsing, the PDF check, the store's
 * insert), and a spill would move the same attack onto the disk.
 */
import type { RequestHandler, Response } from 'express';
import { AppError } from '../errors.js';
import { hasBody } from './content-encoding.js';

export interface BodyBudgetLimits {
  /** Bytes of bodies all requests together may hold. */
  totalBytes: number;
  /** Bytes of bodies one client's requests may hold. */
  perClientBytes: number;
}

/** Seconds a refused client is told to wait: bodies in flight are read within seconds, or time out. */
export const BODY_RETRY_AFTER_S = 5;

const MB = 1024 * 1024;

/** The counts: bytes reserved in all and by client. */
export class BodyBudget {
  #reserved = 0;
  readonly #clients = new Map<string, number>();

  constructor(readonly limits: BodyBudgetLimits) {}

  /** Bytes reserved now, in all or by one client. */
  reserved(client?: string): number {
    return client === undefined ? this.#reserved : (this.#clients.get(client) ?? 0);
  }

  /** Reserves `bytes` for `client`, or throws the refusal (AppError with a retry delay) and reserves nothing. */
  reserve(client: string, bytes: number): void {
    const held = this.#clients.get(client) ?? 0;
    if (held + bytes > this.limits.perClientBytes) {
      throw new AppError(
        'rate_limit_exceeded',
        `Too many request bodies in flight for this key (${Math.round(this.limits.perClientBytes / MB)} MB at once); retry when your other uploads have finished.`,
        {
          retryAfter: BODY_RETRY_AFTER_S,
        },
      );
    }
    if (this.#reserved + bytes > this.limits.totalBytes) {
      throw new AppError('service_unavailable', 'The server is reading too many request bodies at once; retry shortly.', {
        retryAfter: BODY_RETRY_AFTER_S,
      });
    }
    this.#clients.set(client, held + bytes);
    this.#reserved += bytes;
  }

  release(client: string, bytes: number): void {
    const left = (this.#clients.get(client) ?? 0) - bytes;
    if (left > 0) this.#clients.set(client, left);
    else this.#clients.delete(client);
    this.#reserved -= bytes;
  }
}

/** One request's part of the budget: grows as its body arrives, given back once when the request ends. */
export class BodyLease {
  #held = 0;
  #ended = false;

  constructor(
    readonly budget: BodyBudget,
    readonly client: string,
  ) {}

  /** Bytes this request holds. */
  get held(): number {
    return this.#held;
  }

  /**
   * Makes sure `bytes` in all are reserved for this body (what has arrived, or what it declared),
   * throwing the refusal when they do not fit. After the request ended it reserves nothing: a body
   * still read off then is dropped, not held.
   */
  cover(bytes: number): void {
    if (this.#ended || bytes <= this.#held) return;
    this.budget.reserve(this.client, bytes - this.#held);
    this.#held = bytes;
  }

  /** Gives every byte back; once. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.budget.release(this.client, this.#held);
    this.#held = 0;
  }
}

/** The request's lease, for the body readers (http/json-body.ts, http/multipart.ts); absent for a request without a body, or where bodies are not budgeted. */
export function bodyLeaseOf(res: Response | undefined): BodyLease | undefined {
  return res?.locals.bodyLease as BodyLease | undefined;
}

/**
 * Gives each request a lease on `budget`, ended when its response closes (sent, or the connection
 * gone). Placed after authentication: the client is the key when there is one, else the address.
 */
export function leaseBodyBudget(budget: BodyBudget): RequestHandler {
  return (req, res, next) => {
    if (!hasBody(req.headers)) return next();
    const key = res.locals.apiKey as { id: string } | undefined;
    const lease = new BodyLease(budget, key ? `key:${key.id}` : `ip:${req.ip ?? req.socket.remoteAddress ?? ''}`);
    res.locals.bodyLease = lease;
    res.once('close', () => lease.end());
    next();
  };
}
