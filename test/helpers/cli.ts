import { main } from '../../src/cli/main.js'

/** Runs `parx --api-url <apiUrl> ...args` in-process and captures what it prints and its exit code. */
export async function runParx(apiUrl: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = []
  const err: string[] = []
  process.exitCode = 0
  const code = await main(['node', 'parx', '--api-url', apiUrl, ...args], {
    stdout: (s: string) => void out.push(s),
    stderr: (s: string) => void err.push(s),
    env,
  })
  process.exitCode = 0
  return { code, out: out.join('\n'), err: err.join('\n') }
}
