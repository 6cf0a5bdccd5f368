import { logPath } from '../src/config/paths.js'
import pino, { type Logger } from 'pino'

/** The daemon log goes to `<dataDir>/parx.log`; the terminal shows progress and the ready line only. */
export function createLogger(dataDir: string, level: string): Logger {
  if (level === 'silent') return pino({ level: 'silent' })
  return pino(
    { level, redact: { paths: ['*.key', '*.privateKey', '*.operatorToken', '*.platformWallet', '*.wallet_sealed', 'req.headers["x-user-key"]', 'req.headers["x-agent-key"]', 'req.headers["x-api-key"]', 'req.headers.authorization'], censor: '[secret]' } },
    pino.destination({ dest: logPath(dataDir), mkdir: true, sync: false }),
  )
}
