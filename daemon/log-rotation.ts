import { existsSync, renameSync, rmSync, statSync } from 'node:fs'
import { rotatedLogPath } from '../src/config/paths.js'

/** What `log.maxMegabytes` and `log.files` set (docs/operations.md "Retention and log size"). */
export type LogCap = {
  /** `parx.log` is rotated once it would pass this many bytes. */
  maxBytes: number
  /** Rotated files kept beside it (`parx.log.1` newest ... `parx.log.N`); older ones are deleted. */
  keep: number
}

/** The part of pino's destination (sonic-boom) this needs. */
type Destination = { write(chunk: string): boolean; reopen(file?: string): void }

/**
 * Caps the daemon log's size on disk at about maxBytes × (keep + 1): when a write would take
 * `path` past maxBytes, it is renamed to `path.1` (the older ones shifted, the oldest deleted) and
 * pino's destination reopens `path` anew (sonic-boom's `reopen`, pino's own way to rotate, here
 * done in-process so a deployment needs no logrotate). Lines written meanwhile are not lost:
 * buffered ones go to the renamed file or the new one. Synchronous renames, once per maxBytes.
 */
export function capLogSize(dest: Destination, path: string, cap: LogCap): void {
  let bytes = statSync(path, { throwIfNoEntry: false })?.size ?? 0
  const write = dest.write.bind(dest)
  dest.write = (chunk: string) => {
    const n = Buffer.byteLength(chunk)
    // Not while the previous rotation's reopen is still pending (an async destination): the lines
    // meanwhile are buffered for the new file, and shifting the kept files again would lose them.
    if (bytes > 0 && bytes + n > cap.maxBytes && existsSync(path)) {
      try {
        rotate(path, cap.keep)
        dest.reopen()
        bytes = 0
      } catch {
        // A rename refused (permissions, a full disk): go on writing where we are; the next line retries.
      }
    }
    bytes += n
    return write(chunk)
  }
}

function rotate(path: string, keep: number): void {
  if (keep <= 0) return void rmSync(path, { force: true })
  rmSync(rotatedLogPath(path, keep), { force: true })
  for (let i = keep - 1; i >= 1; i--)
    if (existsSync(rotatedLogPath(path, i))) renameSync(rotatedLogPath(path, i), rotatedLogPath(path, i + 1))
  renameSync(path, rotatedLogPath(path, 1))
}
