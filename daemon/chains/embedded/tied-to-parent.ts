import { existsSync } from 'node:fs'

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p))

/**
 * The command line that starts `argv` so the kernel stops it when the daemon dies, however it
 * dies (SIGKILL included): util-linux `setpriv --pdeathsig SIGTERM` sets the parent-death signal
 * and then execs the program, so the child is still one process with one pid (the anvil itself),
 * and SIGTERM lets anvil write its state file on the way out. Where setpriv is missing the program
 * starts directly, and the pid file reaping at the next start remains the fallback.
 */
export function tiedToParent(argv: string[]): string[] {
  if (process.platform !== 'linux' || !SETPRIV) return argv
  return [SETPRIV, '--pdeathsig', 'SIGTERM', '--', ...argv]
}
