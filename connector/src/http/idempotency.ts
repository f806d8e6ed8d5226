/**
 * Idempotency-Key on POST routes: the first response to a key is stored (per API key) and
 * replayed for repeats of the same request, which run nothing and charge nothing again. A repeat
 * with another body is refused (422); one that arrives while the first still runs gets 409.
 * Responses that the client should be free to retry (402, 409, 429, 5xx) are not kept, nor any body
 * over MAX_STORED_RESPONSE_BYTES (its claim is released: a repeat runs again).
 *
 * Routes that accept or charge (sync verify, async, batch) store their answer in the same transaction
 * as the charge or the accepted work; the save here, after answering, covers the rest (refusals).
 *
 * "The same request" is the same method, path and body bytes (inflated): json-body.ts hashes the bytes
 * as read, off the event loop: hashing JSON.stringify of the parsed body would hold the loop ~100 ms
 * for a 19 MB body. Two spellings of one JSON value are two requests here.
 */
import crypto from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { AppError } from '../errors.js';
import { currentKey } from './auth.js';
import { bodyDigestOf } from './json-body.js';
import type { Logger } from '../logger.js';
import { keepableBody } from '../store/idempotent-record.js';
import type { Store } from '../store/types.js';

const MAX_KEY_LENGTH = 255;
/** A claim older than this whose request never finished (its process died) may be taken over. */
const STALE_AFTER_MS = 60_000;
const NOT_KEPT = new Set([402, 409, 429]);

export function idempotencyKeyOf(res: Response): string | undefined {
  return res.locals.idemKey as string | undefined;
}

export function idempotency(ctx: { store: Pick<Store, 'idempotency'>; logger: Logger; now: () => Date }): RequestHandler {
  return async (req, res, next) => {
    const idemKey = req.get('idempotency-key');
    if (req.method !== 'POST' || idemKey === undefined) return next();
    if (idemKey.length === 0 || idemKey.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(idemKey)) {
      throw new AppError('invalid_request', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters.`);
    }
    const key = currentKey(res);
    // Without a digest the request had no body to read (the fallback is then "null").
    const body = bodyDigestOf(res) ?? JSON.stringify(req.body ?? null);
    const requestHash = crypto.createHash('sha256').update(`${req.method} ${req.path}\n${body}`).digest('hex');
    const now = ctx.now();
    const begun = await ctx.store.idempotency.begin(
      key.id,
      idemKey,
      requestHash,
      now.toISOString(),
      new Date(now.getTime() - STALE_AFTER_MS).toISOString(),
    );
    if (begun.state === 'replay') {
      res.status(begun.status!).set('Idempotent-Replayed', 'true').type('application/json').send(begun.body);
      return;
    }
    if (begun.state === 'mismatch')
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body.');
    if (begun.state === 'in_progress')
      throw new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly.');

    res.locals.idemKey = idemKey;
    const send = res.send.bind(res);
    let settled = false;
    res.send = (body?: unknown) => {
      if (!settled) {
        settled = true;
        const status = res.statusCode;
        const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body);
        const keep = status < 500 && !NOT_KEPT.has(status) && keepableBody(text);
        // The route may already have stored this response in the same transaction as a charge;
        // completing again writes the same values.
        void (
          keep
            ? ctx.store.idempotency.complete(key.id, idemKey, { status, body: text }, ctx.now().toISOString())
            : ctx.store.idempotency.release(key.id, idemKey)
        ).catch((err: unknown) => ctx.logger.error({ err }, 'idempotency record not saved'));
      }
      return send(body);
    };
    next();
  };
}
