/**
 * Operator CLI for API keys (prints JSON):
 *   npm run keys -- create --mode live|test --name NAME [--email E] [--plan free|standard|enterprise] [--credits N] [--scopes verify,extract,datasets]
 *   npm run keys -- list
 *   npm run keys -- revoke --id KEY_ID
 *   npm run keys -- credits --id KEY_ID [--add N | --set N] [--allowance N]
 *   npm run keys -- webhook-secret --id KEY_ID [--rotate]
 * The plain key appears only in the output of `create`; it is never stored or logged.
 */
import { parseArgs } from 'node:util';
import { PLANS, type TPlan } from '../../../shared/account.js';
import { createApiKey } from '../auth/create-key.js';
import { parseScopes } from '../auth/keys.js';
import { billingPeriod } from '../credits/period.js';
import type { ApiKeyRecord } from '../store/types.js';
import { generateWebhookSecret } from '../../../shared/webhooks.js';
import { runCli, UsageError, withStore } from './args.js';

const USAGE = `Usage:
  npm run keys -- create --mode live|test --name NAME [--email E] [--plan free|standard|enterprise] [--credits N] [--scopes verify,extract,datasets]
  npm run keys -- list
  npm run keys -- revoke --id KEY_ID
  npm run keys -- credits --id KEY_ID [--add N | --set N] [--allowance N]
  npm run keys -- webhook-secret --id KEY_ID [--rotate]
Options: --db PATH (default $COVERCHECK_DB or data/covercheck.db)`;

/** What operators see of a key in listings: no hash, no webhook secret. */
function publicView(k: ApiKeyRecord) {
  const { hash: _hash, webhook_secret: _secret, ...rest } = k;
  return rest;
}

function intFlag(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      mode: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      plan: { type: 'string' },
      credits: { type: 'string' },
      scopes: { type: 'string' },
      id: { type: 'string' },
      add: { type: 'string' },
      set: { type: 'string' },
      allowance: { type: 'string' },
      rotate: { type: 'boolean' },
      db: { type: 'string' },
    },
  });
  const command = positionals[0];
  const out = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);
  switch (command) {
    case 'create': {
      if (values.mode !== 'live' && values.mode !== 'test') throw new UsageError('--mode must be live or test');
      if (!values.name) throw new UsageError('--name is required');
      if (values.plan && !(PLANS as readonly string[]).includes(values.plan))
        throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
      let scopes;
      try {
        scopes = parseScopes(values.scopes);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      const credits = intFlag(values.credits, 'credits');
      if (credits !== undefined && credits < 0) throw new UsageError('--credits must be 0 or more');
      await withStore(values.db, async (store) => {
        const { key, record } = await createApiKey(store, {
          mode: values.mode as 'live' | 'test',
          name: values.name!,
          email: values.email ?? null,
          plan: (values.plan as TPlan | undefined) ?? 'free',
          scopes,
          credits,
        });
        out({ key, webhook_secret: record.webhook_secret, ...publicView(record) });
      });
      return;
    }
    case 'list':
      await withStore(values.db, async (store) => out((await store.keys.list()).map(publicView)));
      return;
    case 'revoke': {
      if (!values.id) throw new UsageError('--id is required');
      await withStore(values.db, async (store) => {
        const ok = await store.keys.revoke(values.id!, new Date().toISOString());
        if (!ok && !(await store.keys.get(values.id!))) throw new Error(`No key with id ${values.id}`);
        out({ id: values.id, status: 'revoked' });
      });
      return;
    }
    case 'credits': {
      if (!values.id) throw new UsageError('--id is required');
      const add = intFlag(values.add, 'add');
      const set = intFlag(values.set, 'set');
      const allowance = intFlag(values.allowance, 'allowance');
      if (add !== undefined && set !== undefined) throw new UsageError('use --add or --set, not both');
      if ((set !== undefined && set < 0) || (allowance !== undefined && allowance < 0))
        throw new UsageError('--set and --allowance must be 0 or more');
      await withStore(values.db, async (store) => {
        const now = new Date();
        const key = await store.keys.get(values.id!);
        if (!key) throw new Error(`No key with id ${values.id}`);
        if (add !== undefined || set !== undefined || allowance !== undefined) {
          await store.credits.adjust(
            key.id,
            {
              add,
              set,
              allowance,
            },
            now.toISOString(),
          );
        }
        const after = (await store.keys.get(key.id))!;
        out({
          id: key.id,
          mode: after.mode,
          period: billingPeriod(now),
          balance: await store.credits.balance(key.id, billingPeriod(now), now.toISOString()),
          allowance: after.allowance,
          ledger: await store.credits.ledger(key.id),
        });
      });
      return;
    }
    case 'webhook-secret': {
      if (!values.id) throw new UsageError('--id is required');
      await withStore(values.db, async (store) => {
        const key = await store.keys.get(values.id!);
        if (!key) throw new Error(`No key with id ${values.id}`);
        let secret = key.webhook_secret;
        if (values.rotate || !secret) {
          secret = generateWebhookSecret();
          await store.keys.setWebhookSecret(key.id, secret);
        }
        out({ id: key.id, webhook_secret: secret, rotated: Boolean(values.rotate) });
      });
      return;
    }
    default:
      throw new UsageError(command ? `Unknown command "${command}"` : 'No command given');
  }
}

runCli(main, USAGE);
