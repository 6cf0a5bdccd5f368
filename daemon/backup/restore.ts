import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { extract as tarExtract, list as tarList } from 'tar'
import { chainsDir, dataDirNames, MARKER_TEXT, markerPath } from '../../src/config/paths.js'
import { BaseError } from '../../src/errors/index.js'
import { allowedEntry, type BackupManifest, describeFile, FORMAT, MANIFEST_FILE } from './format.js'

export type RestoreParameters = { file: string; dataDir: string }

/**
 * Unpacks a backup (./format.ts) into a new or empty data dir, checks every file against the
 * manifest's sha256, and marks the dir as parx's. A dir that holds anything is refused
 * (DATA_DIR_NOT_EMPTY): restoring over a live data dir would mix two stores' and chains' states.
 * Nothing is left behind on a refusal or a bad archive: the dir is as it was.
 */
export async function restoreDataDir(p: RestoreParameters): Promise<BackupManifest> {
  if (!existsSync(p.file))
    throw new BaseError('BACKUP_INVALID', `${p.file} does not exist: pass the file \`parx backup --to\` wrote`)
  const existed = existsSync(p.dataDir)
  if (existed) {
    if (!statSync(p.dataDir).isDirectory())
      throw new BaseError('DATA_DIR_NOT_EMPTY', `--data-dir ${p.dataDir} is a file; pass a new or empty directory`)
    const entries = readdirSync(p.dataDir)
    if (entries.length > 0) {
      throw new BaseError(
        'DATA_DIR_NOT_EMPTY',
        `--data-dir ${p.dataDir} is not empty (${entries.length} entries, e.g. ` +
          `${entries.slice(0, 3).join(', ')}); restore into a new or empty ` +
          `directory, or move this one aside first (nothing was changed)`,
      )
    }
  }
  const names = await entriesOf(p.file)
  const strange = names.filter((n) => !allowedEntry(n) && !isChainsDirEntry(n))
  if (!names.includes(MANIFEST_FILE) || !names.includes(dataDirNames.store))
    throw new BaseError('BACKUP_INVALID', `${p.file} is not a parx backup (no ${MANIFEST_FILE} or parx.db in it)`)
  if (strange.length)
    throw new BaseError(
      'BACKUP_INVALID',
      `${p.file} holds files a parx backup never has (${strange.slice(0, 3).join(', ')}); nothing was restored`,
    )
  mkdirSync(p.dataDir, { recursive: true, mode: 0o700 })
  try {
    await tarExtract({
      file: p.file,
      cwd: p.dataDir,
      strict: true,
      filter: (path) => allowedEntry(path.replace(/^\.\//, '')) || isChainsDirEntry(path.replace(/^\.\//, '')),
    })
    const manifest = JSON.parse(readFileSync(join(p.dataDir, MANIFEST_FILE), 'utf8')) as BackupManifest
    if (manifest.format !== FORMAT || typeof manifest.files !== 'object')
      throw new BaseError('BACKUP_INVALID', `${p.file}: ${MANIFEST_FILE} is not a parx backup manifest`)
    for (const [name, want] of Object.entries(manifest.files)) {
      const path = join(p.dataDir, name)
      if (!allowedEntry(name) || !existsSync(path))
        throw new BaseError(
          'BACKUP_INVALID',
          `${p.file}: ${name} is named in the manifest but missing; nothing was restored`,
        )
      const got = describeFile(path)
      if (got.sha256 !== want.sha256 || got.bytes !== want.bytes)
        throw new BaseError(
          'BACKUP_INVALID',
          `${p.file}: ${name} does not match its checksum (the file is damaged); nothing was restored`,
        )
      chmodSync(path, 0o600)
    }
    rmSync(join(p.dataDir, MANIFEST_FILE))
    if (existsSync(chainsDir(p.dataDir))) chmodSync(chainsDir(p.dataDir), 0o700)
    chmodSync(p.dataDir, 0o700)
    writeFileSync(markerPath(p.dataDir), MARKER_TEXT, { mode: 0o600 })
    return manifest
  } catch (e) {
    // Back to how it was: empty, or absent.
    for (const entry of readdirSync(p.dataDir)) rmSync(join(p.dataDir, entry), { recursive: true, force: true })
    if (!existed) rmSync(p.dataDir, { recursive: true, force: true })
    if (e instanceof BaseError) throw e
    throw new BaseError(
      'BACKUP_INVALID',
      `${p.file} cannot be read as a parx backup (${(e as Error).message}); nothing was restored`,
      { cause: e },
    )
  }
}

/** The chains/ folder itself, as tar names it (with or without its slash). */
const isChainsDirEntry = (name: string) => name === dataDirNames.chains || name === `${dataDirNames.chains}/`

async function entriesOf(file: string): Promise<string[]> {
  const names: string[] = []
  try {
    await tarList({ file, strict: true, onReadEntry: (e) => void names.push(e.path.replace(/^\.\//, '')) })
  } catch (e) {
    throw new BaseError(
      'BACKUP_INVALID',
      `${file} is not a readable gzip'd tar (${(e as Error).message}); pass the file \`parx backup --to\` wrote`,
      { cause: e },
    )
  }
  return names
}
