import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { tiedToParent } from '../../daemon/chains/embedded/tied-to-parent.js'

const bin = join(import.meta.dirname, '..', '..', 'bin', 'parx.js')

export type ServeRun = { code: number | null; stdout: string; stderr: string }

/** `parx serve ...` that is expected to fail at start: resolves with its exit code and output. */
export function serveFails(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; prefix?: string[] } = {},
): Promise<ServeRun> {
  const [cmd, ...pre] = [...(opts.prefix ?? []), process.execPath]
  const child = spawn(cmd!, [...pre, bin, 'serve', '--log-level', 'warn', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  // A start that does not fail is stopped, so a failing test never leaves a daemon behind.
  const timer = setTimeout(() => child.kill('SIGTERM'), 45_000)
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    }),
  )
}

/** `parx --output json serve ...` until its ready line. */
export async function serveReady(args: string[], opts: { shell?: string } = {}) {
  const argv = [bin, '--output', 'json', 'serve', '--log-level', 'warn', ...args]
  // Tied to this test process: a test worker that is killed (a timeout) takes its daemon along.
  const [cmd, ...rest] = tiedToParent(
    opts.shell
      ? ['/bin/sh', '-c', `${opts.shell}; exec "$0" "$@"`, process.execPath, ...argv]
      : [process.execPath, ...argv],
  )
  const child = spawn(cmd!, rest, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
  })
  const exited = new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  )
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  return { child, ready: JSON.parse(line), exited, stop, stderr: () => stderr }
}

/** The anvil pids a data dir records. */
export const anvilPids = (dataDir: string): number[] => {
  const dir = join(dataDir, 'chains')
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pid'))
    .map((f) => Number(readFileSync(join(dir, f), 'utf8')))
}

export const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !/State:\s+Z/.test(readFileSync(`/proc/${pid}/status`, 'utf8'))

/** Waits (bounded by attempts, not a clock assertion) until `pred` holds. */
export async function eventually(pred: () => boolean, attempts = 200, everyMs = 50): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (pred()) return true
    await new Promise((r) => setTimeout(r, everyMs))
  }
  return pred()
}
