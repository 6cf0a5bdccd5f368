import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'daemon/**/*.test.ts', 'contracts/**/*.test.ts', 'test/**/*.test.ts'],
    // Builds dist/ first: tests spawn the compiled bin/parx.js, as users run it.
    globalSetup: ['test/helpers/build-dist.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // e2e files each start embedded chains; two cores, so two files at a time.
    maxWorkers: 2,
    pool: 'forks',
  },
})
