import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // HTTP suites start real servers and SQLite files; forks keep native handles isolated per file.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // One PostgreSQL and one Redis for the run (test/global-services.ts); the scale-out suites need them.
    globalSetup: ['test/global-services.ts'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      // The HTTP suites once more with every server on PostgreSQL (test/helpers/server.ts reads the
      // variable): the whole API over the second backend, not only the storage suite.
      // server.test.ts starts no store, so it runs once.
      { extends: true, test: { name: 'postgres', include: ['test/http/**/*.test.ts'], exclude: ['**/node_modules/**', 'test/http/server.test.ts'], env: { COVERCHECK_TEST_BACKEND: 'postgres' } } },
    ],
  },
});
