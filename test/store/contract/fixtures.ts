/** Records the storage contract's sections build their tests from: keys, jobs, outbox rows, insurers, datasets, and the clock they share. */
import type {
  DatasetMeta,
  FinishJob,
  InsurerRecord,
  KeyRequestRecord,
  NewApiKey,
  NewJob,
  NewOutbox,
  NewWriteback,
  RegistryPolicyRecord,
  NewSchedule,
  NewWatch,
  Store,
} from '../../../connector/src/store/types.js';

const BASE = Date.UTC(2026, 10, 2, 10, 0, 0);
/** `sec` seconds after 2026-11-02T10:00:00.000Z, in the form callers pass (toISOString). */
export const at = (sec = 0): string => new Date(BASE + sec * 1000).toISOString();
export const PERIOD = '2026-11';

export function newKey(id: string, over: Partial<NewApiKey> = {}): NewApiKey {
  return {
    id,
    lookup: `lk_${id}`,
    hash: 'ab'.repeat(32),
    name: `key ${id}`,
    mode: 'live',
    plan: 'free',
    scopes: ['verify'],
    allowance: 10,
    period: PERIOD,
    created_at: at(0),
    ...over,
  };
}

export function newJob(id: string, over: Partial<NewJob> = {}): NewJob {
  return {
    id,
    key_id: 'k1',
    kind: 'verification',
    payload: JSON.stringify({ policy_number: id }),
    webhook_url: null,
    created_at: at(0),
    ...over,
  };
}

export function outboxRow(id: string, over: Partial<NewOutbox> = {}): NewOutbox {
  return {
    id,
    key_id: 'k1',
    url: 'https://hooks.example.com/covercheck',
    event_type: 'verification.completed',
    subject_id: `subject-${id}`,
    body: JSON.stringify({ type: 'verification.completed', id }),
    created_at: at(0),
    ...over,
  };
}

export function writebackRow(id: string, over: Partial<NewWriteback> = {}): NewWriteback {
  return {
    id,
    key_id: 'k1',
    subject_type: 'job',
    subject_id: `subject-${id}`,
    kind: 'verification',
    spreadsheet_id: 'sheet-1',
    target: JSON.stringify({ spreadsheet_id: 'sheet-1', sheet: 'Policies' }),
    rows: JSON.stringify([{ policy_number: 'P1', cells: { D: 'valid', E: 3 }, append_if_missing: false }]),
    created_at: at(0),
    ...over,
  };
}

export function finishOf(id: string, owner: string, over: Partial<FinishJob> = {}): FinishJob {
  return {
    id,
    owner,
    status: 'complete',
    result: JSON.stringify({ status: 'valid', id }),
    error: null,
    settlement: { charge: 0, refund: 0, ref: `job:${id}` },
    outbox: null,
    at: at(100),
    ...over,
  };
}

export function insurer(reference: string, over: Partial<InsurerRecord> = {}): InsurerRecord {
  return {
    country: 'DE',
    reference,
    scheme: 'bafin_reg_nr',
    name: `Insurer ${reference}`,
    aliases: [],
    regulated: 'YES',
    authorised: true,
    status_text: 'Authorised',
    kind: 'insurer',
    lei: null,
    source: 'eiopa-register',
    source_detail: null,
    demo: false,
    priority: 30,
    updated_at: at(0),
    ...over,
  };
}

export function policy(num: string, over: Partial<RegistryPolicyRecord> = {}): RegistryPolicyRecord {
  return {
    policy_number: num,
    country: 'UK',
    insurance_type: 'motor',
    insurer_reference: '202153',
    start_date: '2026-01-01',
    end_date: '2026-12-31',
    status: 'active',
    vehicle_registration: 'AB12CDE',
    source: 'mid-extract',
    demo: false,
    ...over,
  };
}

export function dataset(slug: string, over: Partial<DatasetMeta> = {}): DatasetMeta {
  return {
    slug,
    title: `Dataset ${slug}`,
    description: 'Plain description',
    category: 'Economy',
    source: 'ONS',
    source_url: `https://example.org/${slug}`,
    licence: null,
    cadence: 'monthly',
    unit: 'percent',
    refresh: null,
    ...over,
  };
}

export function schedule(id: string, over: Partial<NewSchedule> = {}): NewSchedule {
  return {
    id,
    key_id: 'k1',
    dataset: 'uk-cpi',
    spreadsheet_id: 'sheet-1',
    sheet_name: 'CPI',
    cadence: 'daily',
    point_limit: 100,
    output_mode: 'overwrite',
    next_run_at: at(60),
    created_at: at(0),
    ...over,
  };
}

export function keyRequest(
  id: string,
  over: Partial<Omit<KeyRequestRecord, 'used_at' | 'key_id'>> = {},
): Omit<KeyRequestRecord, 'used_at' | 'key_id'> {
  return { id, email: `${id}@example.com`, mode: 'live', token_hash: `hash-${id}`, created_at: at(0), expires_at: at(3600), ...over };
}

export const byId = <T extends { id: string }>(rows: T[]): T[] => [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
export const count = <T>(xs: T[], pred: (x: T) => boolean): number => xs.filter(pred).length;

/** A watch of k1 with `items` policies (P0, P1, ...), due at at(0). */
export function newWatch(id: string, items = 3, over: Partial<NewWatch> = {}): NewWatch {
  return {
    id,
    key_id: 'k1',
    cadence: 'daily',
    expiry_window_days: 30,
    webhook_url: null,
    email_to: null,
    sheet_target: null,
    notify_unchanged: false,
    next_run_at: at(0),
    created_at: at(0),
    items: Array.from({ length: items }, (_, idx) => ({
      idx,
      policy_number: `P${idx}`,
      input: JSON.stringify({ policy_number: `P${idx}` }),
    })),
    ...over,
  };
}

/** A watch of `keyId` with one closed run that found a change and queued an e-mail digest: a row in every watch table. */
export async function watchWithRun(store: Store, id: string, keyId: string): Promise<void> {
  await store.watches.create(newWatch(id, 1, { key_id: keyId, email_to: `${keyId}@example.com` }));
  const owner = `w-${id}`;
  if ((await store.watches.lease(owner, at(1), at(61)))?.id !== id) throw new Error(`watch ${id} not leased`);
  const run = (await store.watches.openRun(id, owner, { id: `${id}-run`, trigger: 'schedule', at: at(1) }))!;
  const change = { before: '{}', after: '{}', reasons: '["status_changed"]', why: 'status changed' };
  const item = { idx: 0, state: '{}', probe: 'a:1 s:0', charge: 0, change };
  await store.watches.commitChunk({ watch_id: id, run_id: run.id, owner, key_id: keyId, items: [item], ref: `watch:${run.id}`, at: at(2) });
  const mail = {
    id: `${id}-mail`,
    key_id: keyId,
    watch_id: id,
    run_id: run.id,
    to_address: `${keyId}@example.com`,
    subject: 's',
    text: 't',
    html: 'h',
    created_at: at(3),
  };
  const closed = await store.watches.closeRun({
    watch_id: id,
    run_id: run.id,
    owner,
    key_id: keyId,
    status: 'complete',
    stop_reason: null,
    next_run_at: at(86_400),
    outbox: null,
    mail,
    writebacks: [],
    ref: `watch:${run.id}`,
    at: at(3),
  });
  if (!closed) throw new Error(`run of ${id} not closed`);
}
