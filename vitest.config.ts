import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // HTTP suites start real servers and SQLite files; forks keep native handles isolated per file.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
