/** Authentication and scope middleware: resolves the Bearer key, or answers 401/403. */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { TScope } from '../../../shared/account.js';
import { authenticate } from '../auth/keys.js';
import { AppError } from '../errors.js';
import type { ApiKeyRecord, Store } from '../store/types.js';

// last_used_at is for the unused-key sweep; one write a minute per key is plenty.
const TOUCH_EVERY_MS = 60_000;

export function currentKey(res: Response): ApiKeyRecord {
  const key = res.locals.apiKey as ApiKeyRecord | undefined;
  if (!key) throw new Error('currentKey() used on a route without requireKey');
  return key;
}

/**
 * Every Authorization header value the client sent, in order. Node's `req.headers` keeps only the
 * first and silently drops the others (node docs, message.headers), so they are read from
 * `rawHeaders`.
 */
export function authorizationHeaders(req: Request): string[] {
  const values: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') values.push(raw[i + 1]!);
  }
  return values;
}

/** What requireKey reads: the key table and the clock, not the whole context. */
export interface KeyCheckDeps {
  store: Pick<Store, 'keys'>;
  now: () => Date;
}

/**
 * `limits` is rate-limit.ts's RateLimits, typed here by the one method used: rate-limit.ts imports
 * currentKey from this file, and importing its type back would make the two a circle.
 */
export function requireKey(ctx: KeyCheckDeps, limits: { consumeIp(req: Request): Promise<void> }): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const outcome = await authenticate(authorizationHeaders(req), ctx.store.keys);
    if (!outcome.ok) {
      // Failed attempts spend the caller's per-IP budget, which slows key guessing.
      try {
        await limits.consumeIp(req);
      } catch (err) {
        return next(err);
      }
      return next(new AppError(outcome.error, outcome.message));
    }
    res.locals.apiKey = outcome.key;
    const now = ctx.now();
    const last = outcome.key.last_used_at ? Date.parse(outcome.key.last_used_at) : 0;
    if (now.getTime() - last > TOUCH_EVERY_MS) await ctx.store.keys.touch(outcome.key.id, now.toISOString());
    next();
  };
}

export function requireScope(scope: TScope): RequestHandler {
  return (_req, res, next) => {
    const key = currentKey(res);
    if (!key.scopes.includes(scope)) {
      return next(new AppError('insufficient_scope', `This API key lacks the "${scope}" scope needed for this operation.`));
    }
    next();
  };
}
