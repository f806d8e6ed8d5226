/**
 * Mails a connector schedule's key owner when its runs start failing and when it pauses itself:
 * once when a failure streak starts and once on pause, never per failed run, and only where the
 * store knows an address for the key (keys made through the portal).
 */
import type { Logger } from '../logger.js';
import type { Mailer } from '../mailer.js';
import type { ScheduleRecord, Store } from '../store/types.js';

export interface ScheduleAlertDeps {
  store: Pick<Store, 'keys'>;
  mailer: Pick<Mailer, 'send'>;
  logger: Logger;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** After a failed run: `failures` in a row now, `paused` when this run paused the schedule. */
export async function alertFailedRun(
  s: ScheduleRecord,
  failures: number,
  paused: boolean,
  error: string,
  deps: ScheduleAlertDeps,
): Promise<void> {
  // The streak's first failure, or the pause: the runs in between are in the history.
  if (!paused && failures !== 1) return;
  const key = await deps.store.keys.get(s.key_id);
  if (!key?.email) return;
  const where = `sheet "${s.sheet_name}" of spreadsheet ${s.spreadsheet_id} (dataset ${s.dataset}, schedule ${s.id})`;
  const subject = paused ? `Covercheck: scheduled refresh paused after ${failures} failures` : 'Covercheck: a scheduled refresh failed';
  const lines = paused
    ? [
        `The scheduled refresh of ${where} failed ${failures} times in a row and has paused itself.`,
        `The last error: ${error}`,
        `Fix the cause, then resume it: POST /api/v1/sheets/schedules/${s.id}/resume (or "Resume" in the add-on's sidebar).`,
      ]
    : [
        `The scheduled refresh of ${where} failed.`,
        `Error: ${error}`,
        'It is retried within 15 minutes; after repeated failures it pauses itself.',
      ];
  try {
    await deps.mailer.send({ to: key.email, subject, text: lines.join('\n\n'), html: lines.map((l) => `<p>${esc(l)}</p>`).join('\n') });
  } catch (err) {
    // A mail that cannot go out never fails the run or the runner.
    deps.logger.warn({ schedule_id: s.id, error: (err as Error).message }, 'schedule failure alert not sent');
  }
}
