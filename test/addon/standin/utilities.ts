/** Utilities, Blob and Session stand-ins (reference/utilities/utilities, reference/base/blob, reference/base/session). */
import crypto from 'node:crypto';
import { checkTimeZone, formatInZone } from './cell-values.js';
import { Clock, GasError, type Guard } from './runtime.js';

type V = any;

export class FakeBlob {
  constructor(
    private bytes: Uint8Array,
    private type: string,
    private name: string,
  ) {}
  getBytes() {
    return Array.from(this.bytes, (b) => (b > 127 ? b - 256 : b));
  }
  raw() {
    return this.bytes;
  }
  getContentType() {
    return this.type;
  }
  getName() {
    return this.name;
  }
  setName(n: string) {
    this.name = n;
    return this;
  }
  getDataAsString() {
    return Buffer.from(this.bytes).toString('utf8');
  }
}

export function toBuf(x: V): Buffer {
  if (typeof x === 'string') return Buffer.from(x, 'utf8');
  if (x instanceof FakeBlob) return Buffer.from(x.raw());
  return Buffer.from(Uint8Array.from(x as number[], (b) => b & 0xff));
}

export interface SleepStats {
  sleptMs: number;
  sleeps: number[];
}

export function makeUtilities(guard: Guard, clock: Clock, stats: () => SleepStats, sleep?: (ms: number) => void) {
  return {
    /** Sleeps on the simulated clock; a sleep that would cross the execution's limit ends the execution there. */
    sleep(ms: number) {
      const e = guard.call('Utilities.sleep');
      if (!(ms >= 0)) throw new GasError(`Invalid argument: milliseconds ${ms}`);
      const s = stats();
      s.sleptMs += ms;
      s.sleeps.push(ms);
      sleep?.(ms);
      if (e && clock.now + ms - e.started > e.limitMs) {
        clock.now = e.started + e.limitMs + 1;
        throw new GasError('Exceeded maximum execution time');
      }
      clock.advance(ms);
    },
    DigestAlgorithm: { SHA_256: 'sha256', MD5: 'md5', SHA_1: 'sha1' },
    Charset: { UTF_8: 'utf8' },
    computeDigest(alg: string, value: V) {
      guard.call('Utilities.computeDigest');
      return Array.from(crypto.createHash(alg).update(toBuf(value)).digest(), (b) => (b > 127 ? b - 256 : b));
    },
    base64Encode(v: V) {
      guard.call('Utilities.base64Encode');
      return toBuf(v).toString('base64');
    },
    base64EncodeWebSafe(v: V) {
      guard.call('Utilities.base64EncodeWebSafe');
      const b = toBuf(v);
      return b.toString('base64url') + '='.repeat((3 - (b.length % 3)) % 3);
    },
    newBlob(data: V, type = 'application/octet-stream', name = '') {
      guard.call('Utilities.newBlob');
      return new FakeBlob(new Uint8Array(toBuf(data)), type, name);
    },
    getUuid() {
      guard.call('Utilities.getUuid');
      return crypto.randomUUID();
    },
    /** reference/utilities/utilities#formatDate(date, timeZone, format): SimpleDateFormat patterns, in the zone given (cell-values.ts). */
    formatDate(date: V, timeZone: V, format: V) {
      guard.call('Utilities.formatDate');
      if (!(date instanceof Date) || typeof format !== 'string')
        throw new GasError(
          `The parameters (${typeof date}, ${typeof timeZone}, ${typeof format}) don't match the method signature for Utilities.formatDate.`,
        );
      return formatInZone(date.getTime(), checkTimeZone(timeZone), format);
    },
  };
}

/**
 * reference/base/session: getActiveUser needs userinfo.email; the address is blank "in any context
 * that allows a script to run without that user's authorization, like a simple onOpen(e) or
 * onEdit(e) trigger, a custom function in Google Sheets".
 */
/** `locale`: the user's language setting (reference/base/session#getActiveUserLocale: "for example, en for English"). */
export function makeSession(guard: Guard, locale: () => string = () => 'en') {
  const user = (method: string) => {
    const e = guard.call(method);
    const email = e && e.mode === 'FULL' ? e.user : '';
    return { getEmail: () => email };
  };
  return {
    getActiveUser: () => user('Session.getActiveUser'),
    getEffectiveUser: () => user('Session.getEffectiveUser'),
    getActiveUserLocale: () => (guard.call('Session.getActiveUserLocale'), locale()),
    getTemporaryActiveUserKey: () => {
      const e = guard.call('Session.getTemporaryActiveUserKey');
      return crypto.createHash('sha256').update(`tmp:${e?.user}`).digest('base64url').slice(0, 24);
    },
  };
}
