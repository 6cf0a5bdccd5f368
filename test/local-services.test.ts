import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { keccak256, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listeningAddresses } from './helpers/listening.js'
import { eventually, serveReady } from './helpers/serve-process.js'

/**
 * Issue 39 item 6: the local services a daemon starts are reachable from this machine only, and
 * no key is on a command line. `parx serve` (dist) with its API on another loopback address
 * (127.0.0.2, so nothing here listens beyond this machine) and a token-free metrics port; the
 * bundler starts after the ready line. What the kernel's socket tables and /proc say decides.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'parx-local-services-'))
let daemon: Awaited<ReturnType<typeof serveReady>>

/** Every process below `pid`, with its command line (NUL-separated arguments). */
function descendants(pid: number): Array<{ pid: number; cmdline: string }> {
  const parent = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      // The command name in parentheses may hold spaces: the fields after its closing one.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {}
  }
  const out: Array<{ pid: number; cmdline: string }> = []
  const walk = (p: number) => {
    for (const [child, ppid] of parent) {
      if (ppid !== p) continue
      try {
        out.push({ pid: child, cmdline: readFileSync(`/proc/${child}/cmdline`, 'utf8') })
      } catch {}
      walk(child)
    }
  }
  walk(pid)
  return out
}

/** The daemon's secrets: every long string of its key file, and the ERC-4337 keys the platform derives from its deployer key (daemon/buyer/aa/runtime.ts). */
function secrets(): string[] {
  const keys = JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')) as Record<string, unknown>
  const strings: string[] = []
  const collect = (v: unknown) => {
    if (typeof v === 'string') strings.push(v)
    else if (v && typeof v === 'object') Object.values(v).forEach(collect)
  }
  collect(keys)
  const deployer = keys.deployer as string
  const derived = ['deployer', 'sponsor', 'executor', 'utility'].map((label) =>
    keccak256(toHex(`${deployer}:parx platform aa ${label}`)),
  )
  return [...strings.filter((s) => s.length >= 32), ...derived].map((s) => s.replace(/^0x/, '').toLowerCase())
}

const alto = () => descendants(daemon.child.pid!).find((p) => p.cmdline.includes('alto'))

beforeAll(async () => {
  // The bundler started right after the ready line, as a user's daemon does (the suite turns that off).
  daemon = await serveReady(['--data-dir', dataDir, '--port', '0', '--host', '127.0.0.2', '--metrics-port', '0'], {
    shell: 'export PARX_BUNDLER_PRESTART=1',
  })
  const listening = await eventually(
    () => {
      const port = alto()
        ?.cmdline.split('\0')
        .find((_, i, a) => a[i - 1] === '--port')
      return port !== undefined && listeningAddresses(Number(port)).length > 0
    },
    1200,
    100,
  )
  expect(listening, `alto did not start: ${daemon.stderr()}`).toBe(true)
}, 180_000)
afterAll(async () => {
  await daemon?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('local services', () => {
  it('the token-free metrics listener binds 127.0.0.1, not the API host', () => {
    const api = new URL(daemon.ready.urls.api)
    expect(api.hostname).toBe('127.0.0.2')
    expect(listeningAddresses(Number(api.port))).toEqual(['127.0.0.2'])
    const metrics = new URL(daemon.ready.urls.metrics)
    expect(metrics.hostname).toBe('127.0.0.1')
    expect(listeningAddresses(Number(metrics.port))).toEqual(['127.0.0.1'])
  })

  it('alto (the ERC-4337 bundler, whose executor pays for what it bundles) listens on 127.0.0.1 only', () => {
    const port = Number(
      alto()!
        .cmdline.split('\0')
        .find((_, i, a) => a[i - 1] === '--port'),
    )
    expect(listeningAddresses(port)).toEqual(['127.0.0.1'])
  })

  it('no child of the daemon has a key on its command line (/proc/<pid>/cmdline: readable by every local user)', () => {
    const children = descendants(daemon.child.pid!)
    // The two embedded anvils and alto, at least.
    expect(children.filter((c) => /anvil/.test(c.cmdline))).toHaveLength(2)
    expect(children.filter((c) => c.cmdline.includes('alto'))).toHaveLength(1)
    const all = secrets()
    expect(all.length).toBeGreaterThan(4)
    for (const c of children) {
      const line = c.cmdline.toLowerCase()
      expect(
        all.filter((s) => line.includes(s)),
        c.cmdline.replaceAll('\0', ' ').slice(0, 300),
      ).toEqual([])
    }
  })
})
