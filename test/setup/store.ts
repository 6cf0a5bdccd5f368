import { afterAll } from 'vitest'
import { stopTestPostgres } from '../helpers/postgres.js'

// Setup file of the `postgres` vitest project: each test file stops the server it started.
afterAll(() => stopTestPostgres(), 60_000)
