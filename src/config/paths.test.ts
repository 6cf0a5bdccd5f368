import { describe, expect, it } from 'vitest'
import { chainStatePath, DATA_DIR_ENTRIES, isBackupEntry, lockPath, rotatedLogPath, storePath } from './paths.js'

describe('the data dir layout', () => {
  it('names the files the daemon writes', () => {
    expect(storePath('/d')).toBe('/d/parx.db')
    expect(lockPath('/d')).toBe('/d/parx.lock')
    expect(chainStatePath('/d', 'local-base')).toBe('/d/chains/local-base.json')
    expect(rotatedLogPath('/d/parx.log', 2)).toBe('/d/parx.log.2')
    expect(DATA_DIR_ENTRIES).toEqual([
      'parx.db',
      'parx.db-wal',
      'parx.db-shm',
      'keys.json',
      'chains',
      'parx.log',
      'parx.lock',
    ])
  })

  it("lets a backup hold the store, the keys and the chains' state files only", () => {
    for (const ok of ['parx.db', 'keys.json', 'chains/local-base.json']) expect(isBackupEntry(ok), ok).toBe(true)
    // A running chain's files, other folders, paths that climb out: never extracted.
    for (const no of [
      'chains/local-base.tmp',
      'chains/a/b.json',
      'chains/../x.json',
      '../parx.db',
      'parx.lock',
      'parx.db-wal',
      'backups/x.tar.gz',
      'chains',
      'chains/',
      'chains/Base.json',
    ]) {
      expect(isBackupEntry(no), no).toBe(false)
    }
  })
})
