import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // HTTP suites start real servers and SQLite files; forks keep native handles isolated per file.
    pool: 'forks',
    // vitest's default on N cores is N - 1 workers: one file at a time on the 2-core CI machine. The run
    // takes ~14 minutes so (docs/testing.md, "Run time"); two workers showed timing races, since mended,
    // and aren't needed to stay inside CI's 20 minutes, so no file shares the machine with another (the
    // noisy-neighbour suites time a victim against its own baseline, which another file's load would blur).
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // One PostgreSQL and one Redis for the run (test/global-services.ts); the scale-out suites need them.
    globalSetup: ['test/global-services.ts'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', 'test/store/contract/**'] } },
      // The storage contract's sections (one file each) only open stores, close them after each test
      // and share nothing else: one process runs them one after another, loading the stores once
      // instead of once per file.
      { extends: true, test: { name: 'store contract', include: ['test/store/contract/**/*.test.ts'], isolate: false } },
      // The HTTP suites once more with every server on PostgreSQL (test/helpers/server.ts reads the
      // variable): the whole API over the second backend, not only the storage suite. The files that
      // start no store (server, multipart, error-forms, request-log) would only run the same code
      // again, so they run once.
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/http/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'test/http/server.test.ts', 'test/http/multipart.test.ts', 'test/http/error-forms.test.ts', 'test/http/request-log.test.ts'],
          env: { COVERCHECK_TEST_BACKEND: 'postgres' },
        },
      },
    ],
  },
});
