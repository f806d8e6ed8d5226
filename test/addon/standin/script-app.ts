/**
 * ScriptApp: installable time-driven triggers with the Editor add-on restrictions and the
 * per-user cap, the user's authorization against the manifest's scopes (getAuthorizationInfo), and
 * OAuth tokens for the current user (ScriptApp.getOAuthToken).
 */
import crypto from 'node:crypto';
import { Clock, GasError, type Guard } from './runtime.js';

export interface FakeTrigger {
  uid: string;
  user: string;
  handler: string;
  /** The document the add-on created it in ("Add-ons can only create triggers for the file in which the add-on is used"). */
  docId: string;
  everyMs: number;
  nextAt: number;
  /** Errors of runs: add-on trigger failures are not mailed to the user (Editor add-on triggers). */
  failures: string[];
  runs: number;
}

export interface TriggerHost {
  clock: Clock;
  guard: Guard;
  triggers: FakeTrigger[];
  /** The document of the running execution, null without one. */
  documentId(): string | null;
  issueToken(user: string): string;
  /** The scopes the manifest asks for now, and those `user` has consented to. */
  scopes(): readonly string[];
  granted(user: string): readonly string[];
}

const HOUR = 3600_000;

/**
 * "Quotas for Google Services", Current limitations: "Triggers: 20 / user / script". Google's page
 * gives no error text; this is the one Apps Script throws as commonly reported (Stack Overflow,
 * GitHub issues quoting their execution logs).
 */
export const TRIGGERS_PER_USER_PER_SCRIPT = 20;
export const TOO_MANY_TRIGGERS = 'This script has too many triggers. Triggers must be deleted from the script before more can be added.';

function triggerView(t: FakeTrigger, guard: Guard) {
  return {
    __uid: t.uid,
    getUniqueId: () => (guard.call('Trigger.getUniqueId'), t.uid),
    getHandlerFunction: () => (guard.call('Trigger.getHandlerFunction'), t.handler),
    getEventType: () => (guard.call('Trigger.getEventType'), 'CLOCK'),
  };
}

export function makeScriptApp(host: TriggerHost) {
  const { guard, clock } = host;
  const me = () => guard.exec!.user;
  return {
    AuthMode: { NONE: 'NONE', LIMITED: 'LIMITED', CUSTOM_FUNCTION: 'CUSTOM_FUNCTION', FULL: 'FULL' },
    AuthorizationStatus: { REQUIRED: 'REQUIRED', NOT_REQUIRED: 'NOT_REQUIRED' },
    EventType: { CLOCK: 'CLOCK', ON_OPEN: 'ON_OPEN', ON_EDIT: 'ON_EDIT', ON_CHANGE: 'ON_CHANGE', ON_FORM_SUBMIT: 'ON_FORM_SUBMIT' },
    newTrigger(handler: string) {
      guard.call('ScriptApp.newTrigger');
      return {
        timeBased() {
          guard.call('TriggerBuilder.timeBased');
          let everyMs = 0;
          const b = {
            // reference/script/clock-trigger-builder#everyMinutes: n must be 1, 5, 10, 15 or 30.
            everyMinutes(n: number) {
              if (![1, 5, 10, 15, 30].includes(n)) throw new GasError('The value passed to everyMinutes must be 1, 5, 10, 15 or 30.');
              everyMs = n * 60_000;
              return b;
            },
            everyHours(n: number) {
              if (!(Number.isInteger(n) && n >= 1)) throw new GasError(`Invalid argument: everyHours(${n})`);
              everyMs = n * HOUR;
              return b;
            },
            everyDays(n: number) {
              everyMs = n * 24 * HOUR;
              return b;
            },
            everyWeeks(n: number) {
              everyMs = n * 7 * 24 * HOUR;
              return b;
            },
            create() {
              const user = me();
              const docId = host.documentId();
              // Editor add-on triggers, Restrictions: add-ons create triggers only for the file they are used in.
              if (!docId) throw new GasError('Add-ons can only create triggers for the file in which the add-on is used.');
              if (!everyMs) throw new GasError('The trigger has no schedule: call everyHours(), everyDays() or everyWeeks() first.');
              // Editor add-on triggers, Restrictions: "Time-driven triggers cannot run more frequently than once per hour."
              if (everyMs < HOUR) throw new GasError('Add-ons may not create time-based triggers that run more often than once per hour.');
              // Editor add-on triggers, Restrictions: "only one trigger of each type, per user, per document".
              if (host.triggers.some((t) => t.user === user && t.docId === docId)) {
                throw new GasError('This add-on has created too many time-based triggers in this document for this Google user account.');
              }
              // Quotas, Current limitations: 20 triggers per user per script, whichever documents they are in.
              if (host.triggers.filter((t) => t.user === user).length >= TRIGGERS_PER_USER_PER_SCRIPT)
                throw new GasError(TOO_MANY_TRIGGERS);
              const t: FakeTrigger = {
                uid: String(crypto.randomInt(1e9, 9e9)),
                user,
                handler,
                docId,
                everyMs,
                nextAt: clock.now + everyMs,
                failures: [],
                runs: 0,
              };
              host.triggers.push(t);
              return triggerView(t, guard);
            },
          };
          return b;
        },
      };
    },
    /** reference/script/script-app#getProjectTriggers: "the current user's triggers associated with this project". */
    getProjectTriggers() {
      guard.call('ScriptApp.getProjectTriggers');
      return host.triggers.filter((t) => t.user === me()).map((t) => triggerView(t, guard));
    },
    /**
     * reference/script/script-app#getUserTriggers(Spreadsheet): "all installable triggers owned by
     * this user in the given spreadsheet, for this script or add-on only".
     */
    getUserTriggers(doc: { getId?: () => string }) {
      guard.call('ScriptApp.getUserTriggers');
      if (typeof doc?.getId !== 'function') throw new GasError('Invalid argument: spreadsheet');
      const id = doc.getId();
      return host.triggers.filter((t) => t.user === me() && t.docId === id).map((t) => triggerView(t, guard));
    },
    /**
     * reference/script/authorization-info: whether the user must authorize the script again
     * (REQUIRED when the manifest now asks for a scope the user has not consented to, as after an
     * update that adds one), the URL to do it, and the scopes granted. "Some script executions can
     * start without a user's consent to all required scopes": a call that needs a scope not
     * granted then fails (runtime.ts, Guard.call).
     */
    getAuthorizationInfo(mode: string) {
      guard.call('ScriptApp.getAuthorizationInfo');
      const granted = host.granted(me());
      const missing = mode === 'FULL' ? host.scopes().filter((s) => !granted.includes(s)) : [];
      return {
        getAuthorizationStatus: () => (missing.length ? 'REQUIRED' : 'NOT_REQUIRED'),
        getAuthorizationUrl: () => (missing.length ? 'https://script.google.com/macros/d/standin/authorize' : null),
        getAuthorizedScopes: () => [...granted],
      };
    },
    deleteTrigger(view: { __uid?: string }) {
      guard.call('ScriptApp.deleteTrigger');
      const i = host.triggers.findIndex((t) => t.uid === view?.__uid && t.user === me());
      if (i < 0) throw new GasError("Invalid argument: trigger (not one of the current user's triggers)");
      host.triggers.splice(i, 1);
    },
    getOAuthToken() {
      guard.call('ScriptApp.getOAuthToken');
      return host.issueToken(me());
    },
  };
}
