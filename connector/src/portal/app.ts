/**
 * The key portal as an Express sub-app mounted at /portal: server-rendered HTML forms, its own
 * form parser, CSRF guard, rate limits and HTML error pages (the JSON API's error bodies don't fit a
 * browser). Handlers parse, check, call one use case from request-key.ts and render a page.
 * COVERCHECK_PORTAL (policy.ts) decides which requests it takes; `off` mounts no page at all.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { z } from 'zod';
import type { Config } from '../config.js';
import { INFLATED_ENCODINGS, requireContentEncoding } from '../http/content-encoding.js';
import type { Logger } from '../logger.js';
import type { RedisHandle } from '../redis/client.js';
import { createBudget } from '../redis/rate-limiter.js';
import { createSingleUse } from '../redis/single-use.js';
import type { KeyMode, Store } from '../store/types.js';
import { CSRF_COOKIE, CsrfGuard, readCookie } from './csrf.js';
import type { Mailer } from '../mailer.js';
import { confirmActivationPage, keyPage, linkRefusedPage, mailSentPage, messagePage, requestPage } from './pages.js';
import { checkKeyRequest, formOffer } from './policy.js';
import { activateKey, checkActivationLink, issueKeyByName, requestKeyByEmail } from './request-key.js';

const ZKeyRequest = z.object({
  who: z.string().trim().min(1, 'Enter an e-mail address or a name.').max(200, 'Use at most 200 characters.'),
  // Absent (Enter in the text field with no button named): the form's first button, live where it offers live keys.
  mode: z.enum(['live', 'test']).optional(),
  csrf: z.string().optional(),
});
const ZEmail = z.email();
// A name: printable, no @ (an @ means an e-mail address), no control characters.
const NAME = /^[^@\p{Cc}]{1,100}$/u;

/** Headers on every portal page. Pages may show a key, so nothing is cached and no referrer leaks. */
const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  });
  next();
};

/** What the portal uses, and nothing else of the connector's context. */
export interface PortalDeps {
  config: Config['portal'];
  store: Pick<Store, 'keys' | 'portal'>;
  /** Shares used form ids and the request budgets between instances; null: kept in this process. */
  redis: RedisHandle | null;
  mailer: Mailer;
  logger: Logger;
  now: () => Date;
}

export function createPortal(deps: PortalDeps): express.Express {
  const { config: cfg, mailer } = deps;
  // No routes: every /portal request falls through to the API's 404 in the contract's error body.
  if (cfg.policy.kind === 'off') return express();
  const offer = formOffer(cfg.policy);
  // With Redis, used form ids and both budgets are shared by every instance serving the portal.
  const csrf = new CsrfGuard(cfg.secret, deps.now, createSingleUse(deps.redis, 'portal_form'));
  const perIp = createBudget(deps.redis, { keyPrefix: 'portal_ip', points: cfg.perIpPerHour, duration: 3600 });
  const perAddress = createBudget(deps.redis, { keyPrefix: 'portal_addr', points: cfg.perAddressPerDay, duration: 86_400 });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(securityHeaders);
  // The same Content-Encodings as the API; a refused one or a bad body is a 4xx page below.
  app.use(requireContentEncoding(INFLATED_ENCODINGS));
  app.use(express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }));

  /** The browser's CSRF session id, set (HttpOnly, SameSite=Strict) when missing. */
  const session = (req: Request, res: Response): string => {
    const existing = readCookie(req.get('cookie'), CSRF_COOKIE);
    if (csrf.isSessionId(existing)) return existing;
    const sid = csrf.newSessionId();
    res.cookie(CSRF_COOKIE, sid, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/portal' });
    return sid;
  };

  const html = (res: Response, status: number, body: string) => res.status(status).type('html').send(body);

  /** Refuses a POST whose CSRF field doesn't match the cookie; true when the caller may go on. */
  const checkCsrf = async (req: Request, res: Response): Promise<boolean> => {
    const check = await csrf.verify(readCookie(req.get('cookie'), CSRF_COOKIE), (req.body as Record<string, unknown> | undefined)?.csrf);
    if (check.ok) return true;
    const message =
      check.reason === 'reused'
        ? 'This form was already sent. A key is shown only once, so reloading or going back does not show it again. Start again if you need another key.'
        : 'This form expired or did not come from this site. Open the portal again and resend it.';
    html(res, 403, messagePage(check.reason === 'reused' ? 'Already sent' : 'Form expired', message));
    return false;
  };

  /** Spends rate-limit points; answers 429 with Retry-After and returns false when one is gone. */
  const spend = async (res: Response, limits: [RateLimiterAbstract, string][]): Promise<boolean> => {
    for (const [limiter, key] of limits) {
      try {
        await limiter.consume(key);
      } catch (rej) {
        if (!(rej instanceof RateLimiterRes)) throw rej;
        const retryAfter = Math.max(1, Math.ceil(rej.msBeforeNext / 1000));
        res.set('Retry-After', String(retryAfter));
        const wait =
          retryAfter >= 3600
            ? `${Math.ceil(retryAfter / 3600)} hours`
            : retryAfter >= 60
              ? `${Math.ceil(retryAfter / 60)} minutes`
              : `${retryAfter} seconds`;
        html(res, 429, messagePage('Too many requests', `Too many key requests. Try again in about ${wait}.`));
        return false;
      }
    }
    return true;
  };

  app.get('/', (req, res) => {
    html(res, 200, requestPage(csrf.issue(session(req, res)), offer));
  });

  app.post('/keys', async (req, res) => {
    if (!(await checkCsrf(req, res))) return;
    const sid = session(req, res);
    const parsed = ZKeyRequest.safeParse(req.body ?? {});
    if (!parsed.success) {
      return html(res, 400, requestPage(csrf.issue(sid), offer, { error: parsed.error.issues[0]?.message ?? 'Check the form.' }));
    }
    const { who } = parsed.data;
    const mode: KeyMode = parsed.data.mode ?? (offer.live ? 'live' : 'test');
    const isEmail = who.includes('@');
    if (isEmail && !ZEmail.safeParse(who).success) {
      return html(
        res,
        400,
        requestPage(csrf.issue(sid), offer, {
          error: 'That is not a valid e-mail address. Without an @ the value is taken as a name.',
          value: who,
        }),
      );
    }
    if (!isEmail && !NAME.test(who)) {
      return html(res, 400, requestPage(csrf.issue(sid), offer, { error: 'A name has 1 to 100 printable characters.', value: who }));
    }
    const address = who.toLowerCase();
    const allowed = checkKeyRequest(cfg.policy, { email: isEmail ? address : null, mode });
    // Refused before the budgets: asking against the policy spends none of them.
    if (!allowed.ok) return html(res, 403, requestPage(csrf.issue(sid), offer, { error: allowed.message, value: who }));
    if (
      !(await spend(res, [
        [perIp, req.ip ?? 'unknown'],
        [perAddress, address],
      ]))
    )
      return;
    const now = deps.now();
    if (isEmail) {
      await requestKeyByEmail({ store: deps.store, mailer, publicUrl: cfg.publicUrl }, address, mode, now);
      return html(res, 200, mailSentPage());
    }
    const issued = await issueKeyByName(deps.store, who, mode, now);
    deps.logger.info({ key_id: issued.keyId, mode: issued.mode }, 'portal key issued by name');
    html(res, 201, keyPage(issued));
  });

  app.get('/activate', async (req, res) => {
    // The request log redacts the token query parameter (http/request-log.ts).
    const token = req.query.token;
    const state = await checkActivationLink(deps.store, token, deps.now());
    if (!state.ok) return html(res, state.reason === 'unknown' ? 404 : 410, linkRefusedPage(state.reason));
    const allowed = checkKeyRequest(cfg.policy, { email: state.request.email, mode: state.request.mode });
    if (!allowed.ok) return html(res, 403, messagePage('Key not available', allowed.message));
    // Not used up by a GET: mail scanners and link previews fetch links; only the button's POST activates.
    html(res, 200, confirmActivationPage(csrf.issue(session(req, res)), token as string));
  });

  app.post('/activate', async (req, res) => {
    if (!(await checkCsrf(req, res))) return;
    if (!(await spend(res, [[perIp, req.ip ?? 'unknown']]))) return;
    // A link mailed under a wider policy mints nothing the policy no longer gives (and stays unused).
    const link = await checkActivationLink(deps.store, (req.body as Record<string, unknown>).token, deps.now());
    if (link.ok) {
      const allowed = checkKeyRequest(cfg.policy, { email: link.request.email, mode: link.request.mode });
      if (!allowed.ok) return html(res, 403, messagePage('Key not available', allowed.message));
    }
    const outcome = await activateKey(deps.store, (req.body as Record<string, unknown>).token, deps.now());
    if (!outcome.ok) return html(res, outcome.reason === 'unknown' ? 404 : 410, linkRefusedPage(outcome.reason));
    deps.logger.info({ key_id: outcome.issued.keyId, mode: outcome.issued.mode }, 'portal key activated from an e-mail link');
    html(res, 201, keyPage(outcome.issued));
  });

  app.use((_req, res) => html(res, 404, messagePage('Not found', 'There is no such portal page.')));
  app.use(((err, req, res, _next) => {
    // The form parser's refusals (charset, Content-Encoding, size, a corrupt compressed body) and
    // the encoding check's carry a 4xx status; they are the client's, not the portal's, failure.
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      if (res.headersSent) return res.end();
      return html(res, status, messagePage('Bad request', 'The form could not be read. Open the portal again.'));
    }
    deps.logger.error({ err, path: req.path, method: req.method }, 'portal request failed');
    if (res.headersSent) return res.end();
    html(res, 500, messagePage('Something went wrong', 'The key could not be issued. Try again in a minute.'));
  }) as express.ErrorRequestHandler);

  return app;
}
