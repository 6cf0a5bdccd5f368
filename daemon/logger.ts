import { logPath } from '../src/config/paths.js'
import pino, { type Logger } from 'pino'
import { capLogSize, type LogCap } from './log-rotation.js'
import { currentRequestId } from './http/request-id.js'

/** Every line written while serving a request names it (docs/operations.md "Request ids"). */
const requestIdMixin = () => {
  const requestId = currentRequestId()
  return requestId ? { requestId } : {}
}

/** The daemon log goes to `<dataDir>/parx.log`; the terminal shows progress and the ready line only. */
export function createLogger(dataDir: string, level: string, cap?: LogCap): Logger {
  if (level === 'silent') return pino({ level: 'silent' })
  const dest = pino.destination({ dest: logPath(dataDir), mkdir: true, sync: false })
  // Bounded on disk: rotated in-process by size (./log-rotation.ts).
  if (cap) capLogSize(dest, logPath(dataDir), cap)
  // A log that cannot be written (disk full, file removed or made read-only) must not take the
  // daemon down with an unhandled 'error' event: say so once and go on without it.
  let warned = false
  dest.on('error', (err: Error) => {
    if (!warned) process.stderr.write(`parx: cannot write the log ${logPath(dataDir)} (${err.message}); continuing without it\n`)
    warned = true
  })
  return pino(
    { level, mixin: requestIdMixin, redact: { paths: ['*.key', '*.privateKey', '*.operatorToken', '*.platformWallet', '*.wallet_sealed', 'req.headers["x-user-key"]', 'req.headers["x-agent-key"]', 'req.headers["x-api-key"]', 'req.headers.authorization'], censor: '[secret]' } },
    dest,
  )
}
