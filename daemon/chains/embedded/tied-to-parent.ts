import { existsSync } from 'node:fs'

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p))
const PERL = ['/usr/bin/perl', '/bin/perl'].find((p) => existsSync(p))

/**
 * The command line that starts `argv` so the kernel stops it when the daemon dies, however it
 * dies (SIGKILL included): util-linux `setpriv --pdeathsig SIGTERM` sets the parent-death signal
 * and then execs the program, so the child is still one process with one pid (the anvil itself),
 * and SIGTERM lets anvil write its exit dump on the way out. Where setpriv is missing the program
 * starts directly, and the pid file reaping at the next start remains the fallback.
 */
export function tiedToParent(argv: string[]): string[] {
  if (process.platform !== 'linux' || !SETPRIV) return argv
  return [SETPRIV, '--pdeathsig', 'SIGTERM', '--', ...argv]
}

/**
 * How to start `argv` in a process group of its own (spawn it with `detached` as returned), so
 * Ctrl-C in the daemon's terminal, which signals the foreground group, reaches only the daemon.
 *
 * The group stays in the daemon's session where it can: Linux schedules each session as one unit
 * (autogroup), so a chain in a session of its own (what `detached` alone does, setsid) got at most
 * as much CPU as the daemon and everything else together. Under the swap bench's 50 clients that
 * moved the queue from anvil's pool into the daemon: "accepted" p50 went from ~25 ms to ~200 ms.
 * perl (perl-base, always installed on Debian) calls setpgid and then execs the program, one pid
 * as before; without it the program gets a session of its own.
 */
export function ownProcessGroup(argv: string[]): { argv: string[]; detached: boolean } {
  if (!PERL) return { argv, detached: true }
  return {
    argv: [
      PERL,
      '-e',
      'setpgrp(0, 0) or die "setpgrp: $!"; exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!"',
      ...argv,
    ],
    detached: false,
  }
}
