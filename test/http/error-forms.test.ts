/** http/errors.ts, the one place errors become bodies: the standard form, and the sync form where a route asks for it. */
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../connector/src/errors.js';
import { errorBodyFor, errorHandler, syncErrorForm } from '../../connector/src/http/errors.js';
import { createLogger } from '../../connector/src/logger.js';

function fakeRes() {
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const res = {
    locals: {} as Record<string, unknown>,
    headersSent: false,
    set(name: string, value: string) {
      sent.headers[name] = value;
      return res;
    },
    status(code: number) {
      sent.status = code;
      return res;
    },
    json(body: unknown) {
      sent.body = body;
      return res;
    },
  };
  return { res: res as unknown as Response, sent };
}

const credits = new AppError('insufficient_credits', 'Credits exhausted: balance 0.', { balance: 0 });

describe('error bodies', () => {
  it('standard form by default: error, message, code; retry_after and Retry-After with a retry delay', () => {
    const { res, sent } = fakeRes();
    expect(errorBodyFor(credits, res)).toEqual({ error: 'insufficient_credits', message: 'Credits exhausted: balance 0.', code: 402 });
    errorHandler(createLogger('silent'))(
      new AppError('rate_limit_exceeded', 'Slow down.', { retryAfter: 7 }),
      {} as Request,
      res,
      () => {},
    );
    expect(sent).toEqual({
      status: 429,
      headers: { 'Retry-After': '7' },
      body: { error: 'rate_limit_exceeded', message: 'Slow down.', code: 429, retry_after: 7 },
    });
  });

  it("after syncErrorForm: the route's own 4xx in the sync form (detail, balance), a server failure still standard", () => {
    const { res, sent } = fakeRes();
    let nexted = false;
    syncErrorForm({} as Request, res, () => void (nexted = true));
    expect(nexted).toBe(true);
    errorHandler(createLogger('silent'))(credits, {} as Request, res, () => {});
    expect(sent).toEqual({
      status: 402,
      headers: {},
      body: { error: 'insufficient_credits', detail: 'Credits exhausted: balance 0.', balance: 0 },
    });
    expect(errorBodyFor(new AppError('invalid_policy_number', 'Bad number.'), res)).toEqual({
      error: 'invalid_policy_number',
      detail: 'Bad number.',
    });
    expect(errorBodyFor(new AppError('service_unavailable', 'Down.', { retryAfter: 5 }), res)).toEqual({
      error: 'service_unavailable',
      message: 'Down.',
      code: 503,
      retry_after: 5,
    });
  });

  it('anything that is not an AppError is a 500 without internals', () => {
    const { res, sent } = fakeRes();
    errorHandler(createLogger('silent'))(new Error('secret path /etc/x'), { path: '/x', method: 'GET' } as Request, res, () => {});
    expect(sent.status).toBe(500);
    expect(JSON.stringify(sent.body)).not.toContain('secret');
  });
});
