import { packageVersion } from '../../src/config/package-root.js'
import { type BackupService, backupService } from '../backup/service.js'
import type { Core } from './core.js'

/**
 * `parx backup` of a running daemon; the local profile's EVM chains are embedded (anvil): their state goes into the
 * backup.
 */
export function composeBackup({ config, chains }: Core): BackupService {
  return backupService({
    dataDir: config.dataDir,
    sqlite: !config.store.url,
    embedded: config.profile === 'local' ? chains.evm : {},
    parxVersion: packageVersion(),
  })
}
