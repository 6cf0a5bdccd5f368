import pino, { type Logger } from 'pino'
import { logPath } from '../src/config/paths.js'
import { currentRequestId } from './http/request-id.js'
import { capLogSize, type LogCap } from './log-rotation.js'

/** Every line written while serving a request names it (docs/operations.md "Request ids"). */
const requestIdMixin = () => {
  const requestId = currentRequestId()
  return requestId ? { requestId } : {}
}

export type DaemonLog = {
  log: Logger
  /**
   * Writes what is buffered and closes the file; lines logged later (a callback finishing after
   * the stop) are dropped. A daemon run inside another process (a test, a benchmark) leaves neither
   * the file open nor pino's exit hook on `process` behind it.
   */
  close(): Promise<void>
}

/** The daemon log goes to `<dataDir>/parx.log`; the terminal shows progress and the ready line only. */
export function openLog(dataDir: string, level: string, cap?: LogCap): DaemonLog {
  if (level === 'silent') return { log: pino({ level: 'silent' }), close: async () => {} }
  const dest = pino.destination({ dest: logPath(dataDir), mkdir: true, sync: false })
  // Bounded on disk: rotated in-process by size (./log-rotation.ts).
  if (cap) capLogSize(dest, logPath(dataDir), cap)
  // A log that cannot be written (disk full, file removed or made read-only) must not take the
  // daemon down with an unhandled 'error' event: say so once and go on without it.
  let warned = false
  let opened = false
  let neverOpened = false
  dest.on('ready', () => (opened = true))
  dest.on('error', (err: Error) => {
    if (!opened) neverOpened = true
    if (!warned)
      process.stderr.write(`parx: cannot write the log ${logPath(dataDir)} (${err.message}); continuing without it\n`)
    warned = true
  })
  // sonic-boom throws on a write once closed: a late line must not throw into whoever logged it.
  let closing: Promise<void> | undefined
  const write = dest.write.bind(dest)
  dest.write = (chunk: string) => (closing !== undefined ? true : write(chunk))
  const log = pino(
    {
      level,
      mixin: requestIdMixin,
      redact: {
        paths: [
          '*.key',
          '*.privateKey',
          '*.operatorToken',
          '*.platformWallet',
          '*.wallet_sealed',
          'req.headers["x-user-key"]',
          'req.headers["x-agent-key"]',
          'req.headers["x-api-key"]',
          'req.headers.authorization',
        ],
        censor: '[secret]',
      },
    },
    dest,
  )
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      // A file that never opened holds nothing to write, and sonic-boom's end would wait for it forever.
      if (neverOpened) return resolve()
      // 'close' also takes pino's flush-at-exit hook off `process` (pino's buildSafeSonicBoom).
      dest.once('close', () => resolve())
      dest.once('error', () => resolve())
      dest.end()
    }))
  return { log, close }
}
