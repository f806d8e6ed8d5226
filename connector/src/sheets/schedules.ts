/**
 * A key's scheduled dataset refreshes into its spreadsheets, as plain functions: create (the
 * dataset must exist, the spreadsheet be bound to the key), list, read, resume (after the runner
 * paused it), delete. Running them is
 * the ScheduleRunner's (scheduler.ts).
 */
import crypto from 'node:crypto';
import type { TSchedule, TScheduleRequest } from '../../../shared/sheets.js';
import { AppError, notFoundForKey } from '../errors.js';
import type { ScheduleRecord, Store } from '../store/types.js';
import { SCHEDULE_RUNS_KEPT } from '../store/types/sheets.js';
import type { SheetBindings } from './bindings.js';
import { scheduleView } from './views.js';

export interface ScheduleDeps {
  store: Pick<Store, 'schedules' | 'datasets'>;
  bindings: Pick<SheetBindings, 'require'>;
  /** Wakes the runner, so the first run starts without waiting for its next poll. */
  notify: () => void;
  now: () => Date;
}

/** How many of a schedule's latest runs its view shows: all the store keeps. */
export const RUNS_SHOWN = SCHEDULE_RUNS_KEPT;

async function view(store: Pick<Store, 'schedules'>, s: ScheduleRecord): Promise<TSchedule> {
  return scheduleView(s, await store.schedules.runs(s.id, RUNS_SHOWN));
}

export async function createSchedule(keyId: string, request: TScheduleRequest, deps: ScheduleDeps): Promise<TSchedule> {
  if (!(await deps.store.datasets.get(request.dataset))) throw new AppError('not_found', `No dataset "${request.dataset}".`);
  await deps.bindings.require(keyId, request.spreadsheet_id);
  const now = deps.now().toISOString();
  const record = {
    id: `sch_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
    key_id: keyId,
    dataset: request.dataset,
    spreadsheet_id: request.spreadsheet_id,
    sheet_name: request.sheet_name,
    cadence: request.cadence,
    point_limit: request.limit,
    output_mode: request.mode,
    // The first run happens at once: the sheet is filled when the schedule is made.
    next_run_at: now,
    created_at: now,
  };
  await deps.store.schedules.create(record);
  deps.notify();
  return view(deps.store, { ...record, running_until: null, failures_in_row: 0, paused_at: null, paused_reason: null });
}

export async function listSchedules(keyId: string, store: Pick<Store, 'schedules'>): Promise<TSchedule[]> {
  return Promise.all((await store.schedules.list(keyId)).map((s) => view(store, s)));
}

export async function getSchedule(keyId: string, id: string, store: Pick<Store, 'schedules'>): Promise<TSchedule> {
  const s = await store.schedules.get(id);
  if (!s || s.key_id !== keyId) throw notFoundForKey('schedule', id);
  return view(store, s);
}

/** Un-pauses the key's schedule, resets its failure count and runs it at once. */
export async function resumeSchedule(keyId: string, id: string, deps: Pick<ScheduleDeps, 'store' | 'notify' | 'now'>): Promise<TSchedule> {
  if (!(await deps.store.schedules.resume(id, keyId, deps.now().toISOString()))) throw notFoundForKey('schedule', id);
  deps.notify();
  return getSchedule(keyId, id, deps.store);
}

export async function deleteSchedule(keyId: string, id: string, store: Pick<Store, 'schedules'>): Promise<void> {
  if (!(await store.schedules.delete(id, keyId))) throw notFoundForKey('schedule', id);
}
