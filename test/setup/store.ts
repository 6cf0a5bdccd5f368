import { afterAll } from 'vitest'
import { stopTestPostgres } from '../helpers/postgres.js'

// Setup file of the `postgres` vitest project: each test file drops the databases it made on the
// run's server (or stops the server it started, run without the project's globalSetup).
afterAll(() => stopTestPostgres(), 60_000)
