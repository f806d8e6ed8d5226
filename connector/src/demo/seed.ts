/**
 * Loads the shipped reference data (register, demo registry, demo sanctions, dataset catalogue) and, in demo mode,
 * a sandbox key. Idempotent: safe on every start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SCOPES } from '../../../shared/account.js';
import { generateWebhookSecret } from '../../../shared/webhooks.js';
import { createApiKey, SANDBOX_KEY_NAME } from '../auth/create-key.js';
import { hashKey, parseKey } from '../auth/keys.js';
import { billingPeriod } from '../credits/period.js';
import { seedDatasets } from '../datasets/catalogue.js';
import { seedRegister } from '../insurers/seed.js';
import { loadSanctionsFile } from '../sanctions/index.js';
import type { Store } from '../store/types.js';
import { parseRegistryCsv } from '../verify/registry/import.js';

export async function seedReferenceData(
  store: Store,
  dataDir: string,
  now: Date,
): Promise<{ insurers: number; policies: number; sanctions: number; datasets: number }> {
  const at = now.toISOString();
  const register = await seedRegister(store, path.join(dataDir, 'register'), at);
  const registry = parseRegistryCsv(fs.readFileSync(path.join(dataDir, 'registry', 'demo_policies.csv'), 'utf8'), {
    source: 'demo',
    demo: true,
    now: at,
  });
  await store.registry.upsertMany(registry.rows);
  await store.registry.setCoverage(registry.coverage);
  const sanctions = await loadSanctionsFile(store.sanctions, path.join(dataDir, 'sanctions', 'demo_sanctions.csv'), 'demo', true);
  const datasets = await seedDatasets(store, path.join(dataDir, 'datasets'), now);
  return { insurers: register.loaded, policies: registry.rows.length, sanctions, datasets };
}

/**
 * The sandbox key to print. Keys are stored hashed, so a key from an earlier start cannot be
 * shown again: each start mints a fresh one and revokes the previous printed one, unless
 * COVERCHECK_SANDBOX_KEY fixes it.
 */
export async function ensureSandboxKey(
  store: Store,
  fixed: string | undefined,
  now: Date,
): Promise<{ key: string; webhookSecret: string | null }> {
  const existing = (await store.keys.list()).filter((k) => k.name === SANDBOX_KEY_NAME && k.status === 'active');
  if (fixed) {
    const parsed = parseKey(fixed);
    if (!parsed.ok || parsed.mode !== 'test') throw new Error('COVERCHECK_SANDBOX_KEY must be a pk_test_ key');
    const found = await store.keys.findByLookup(parsed.lookup);
    if (found && found.hash !== hashKey(fixed)) throw new Error('COVERCHECK_SANDBOX_KEY collides with another key');
    if (!found) {
      // Several instances starting at once on one database race to create it: the loser's insert
      // hits the unique lookup, and the row the winner wrote is read back below.
      const record = {
        id: `key_sandbox_${parsed.lookup.toLowerCase()}`,
        lookup: parsed.lookup,
        hash: hashKey(fixed),
        name: SANDBOX_KEY_NAME,
        mode: 'test' as const,
        plan: 'free' as const,
        scopes: [...SCOPES],
        allowance: 1000,
        period: billingPeriod(now),
        created_at: now.toISOString(),
        webhook_secret: generateWebhookSecret(),
      };
      await store.keys.create(record).catch(async (err: unknown) => {
        if ((await store.keys.findByLookup(parsed.lookup))?.hash !== record.hash) throw err;
      });
    }
    return { key: fixed, webhookSecret: (await store.keys.findByLookup(parsed.lookup))?.webhook_secret ?? null };
  }
  for (const k of existing) await store.keys.revoke(k.id, now.toISOString());
  const { key, record } = await createApiKey(store, { mode: 'test', name: SANDBOX_KEY_NAME, scopes: [...SCOPES], credits: 1000, now });
  return { key, webhookSecret: record.webhook_secret };
}
