import { describe, expect, it } from 'vitest'
import { BaseError } from '../../src/errors/index.js'
import { backupService } from './service.js'

describe('backupService', () => {
  it('refuses a PostgreSQL store with BACKUP_UNSUPPORTED, naming pg_dump', async () => {
    const s = backupService({ dataDir: '/nonexistent', sqlite: false, embedded: {}, parxVersion: '0.0.0' })
    const e = await s.create().catch((x: unknown) => x)
    expect(e).toBeInstanceOf(BaseError)
    expect((e as BaseError).code).toBe('BACKUP_UNSUPPORTED')
    expect((e as BaseError).message).toContain('pg_dump')
  })
})
