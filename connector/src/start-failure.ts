/**
 * Starts that fail for a reason outside the code: a setting names something that is not there or
 * not usable (Redis down, the port taken, a missing credentials file, a database path that cannot
 * be opened). main.ts prints the message, one line naming the setting and the cause, and exits 2 as
 * for a bad variable; the operator has nothing to gain from a stack trace. Anything else that fails
 * at start is a fault of the code and keeps its stack.
 */

export class StartFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartFailure';
  }
}

const code = (err: unknown): string | undefined => {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : undefined;
};

const LISTEN: Record<string, (port: number, host: string) => string> = {
  EADDRINUSE: (port, host) => `PORT=${port}: the port is in use by another process (on HOST=${host})`,
  EACCES: (port) =>
    `PORT=${port}: this user may not listen on the port (ports below 1024 need privileges: use a higher one behind a proxy)`,
  EADDRNOTAVAIL: (_port, host) => `HOST=${host}: no network interface of this machine has that address`,
  ENOTFOUND: (_port, host) => `HOST=${host}: the name does not resolve to an address`,
  EAI_AGAIN: (_port, host) => `HOST=${host}: the name could not be resolved (DNS did not answer)`,
};

/** Why the HTTP server could not listen, as a StartFailure naming PORT or HOST; other errors as they are. */
export function listenFailure(err: unknown, port: number, host: string): unknown {
  const describe = LISTEN[code(err) ?? ''];
  return describe ? new StartFailure(describe(port, host), { cause: err }) : err;
}

/**
 * Why the store could not be opened, naming COVERCHECK_DB or COVERCHECK_DATABASE_URL (`where`, its
 * password hidden). Errors with a code are the system's, SQLite's or PostgreSQL's answer about the
 * place the setting names; an error without one is the code's own and is returned as it is.
 */
export function storeFailure(err: unknown, opts: { databaseUrl?: string | undefined; where: string }): unknown {
  if (!code(err)) return err;
  // A refused connection to localhost (both addresses) is an AggregateError with a code and no message.
  const message = (err as Error).message || code(err)!;
  return opts.databaseUrl
    ? new StartFailure(`COVERCHECK_DATABASE_URL=${opts.where}: the database could not be opened (${message})`, { cause: err })
    : new StartFailure(`COVERCHECK_DB=${opts.where}: the database file could not be opened or created (${message})`, { cause: err });
}
