/** The e-mail digest of a watch run: its changes in plain words, text and HTML. */
import type { TWatchChange, TWatchRun } from '../../../shared/watches.js';
import type { NewWatchMail, WatchRecord } from '../store/types.js';

/** Lines a digest lists; the rest are counted (every change is in the webhook event, the sheet and GET). */
export const DIGEST_LINES = 500;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function digestMail(
  watch: WatchRecord & { email_to: string },
  run: TWatchRun,
  changes: TWatchChange[],
  id: string,
  at: string,
): NewWatchMail {
  const n = changes.length;
  const subject = n
    ? `Covercheck: ${n} change${n === 1 ? '' : 's'} among your ${watch.policy_count} watched policies`
    : `Covercheck: no change among your ${watch.policy_count} watched policies`;
  const head = [
    `Watch ${watch.id}, run ${run.run_id} (${run.trigger === 'schedule' ? `${watch.cadence} run` : 'after a register or sanctions update'}): ` +
      `${run.checked} of ${run.policies} policies checked, ${run.credits_charged} credit${run.credits_charged === 1 ? '' : 's'} charged.`,
    ...(run.stop_reason ? [`The run stopped early: ${run.stop_reason}.`] : []),
  ];
  const lines = changes
    .slice(0, DIGEST_LINES)
    .map((c) => `${c.policy_number} (policy ${c.index + 1}): ${c.before.status} -> ${c.after.status}; ${c.why}`);
  const more =
    n > DIGEST_LINES
      ? [`... and ${n - DIGEST_LINES} more: GET /api/v1/watches/${watch.id}, the webhook event or the sheet list them all.`]
      : [];
  const text = [...head, '', ...(n ? lines : ['No policy changed.']), ...more].join('\n');
  const html = [
    ...head.map((l) => `<p>${esc(l)}</p>`),
    n ? `<ul>\n${lines.map((l) => `<li>${esc(l)}</li>`).join('\n')}\n</ul>` : '<p>No policy changed.</p>',
    ...more.map((l) => `<p>${esc(l)}</p>`),
  ].join('\n');
  return {
    id,
    key_id: watch.key_id,
    watch_id: watch.id,
    run_id: run.run_id,
    to_address: watch.email_to,
    subject,
    text,
    html,
    created_at: at,
  };
}
