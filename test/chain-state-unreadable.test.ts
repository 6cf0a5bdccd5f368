import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { exitCodes } from '../src/errors/exit-codes.js'
import { alive, anvilPids, eventually, serveFails, serveReady } from './helpers/serve-process.js'
import { stateHead } from './helpers/state-file.js'

const root = mkdtempSync(join(tmpdir(), 'parx-chain-state-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Every file of the data dir but the log, by content: what a refused start must leave as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name !== 'parx.log')
        out[p.slice(dir.length + 1)] = createHash('sha256').update(readFileSync(p)).digest('hex')
    }
  }
  walk(dir)
  return out
}

const post = (api: string, path: string, body: unknown) =>
  fetch(`${api}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('issue 26 item 2: no silent chain reset', () => {
  it('an unreadable chain state file refuses the start, names what it found and the ways on, and changes nothing; --reset-chain starts that chain over', async () => {
    const d = join(root, 'garbage')
    const state = join(d, 'chains', 'local-base.json')
    const first = await serveReady(['--data-dir', d, '--port', '0'])
    try {
      expect(
        (
          await post(first.ready.urls.api, '/api/local/faucet', {
            to: '0x00000000000000000000000000000000000000aa',
            token: 'USDC',
            amount: '5',
          })
        ).status,
      ).toBe(200)
      expect(
        await eventually(() => {
          try {
            return stateHead(state) > 0
          } catch {
            return false
          }
        }),
      ).toBe(true)
    } finally {
      await first.stop()
    }

    writeFileSync(state, 'garbage where the chain was')
    const before = snapshot(d)
    const refused = await serveFails(['--data-dir', d, '--port', '0'])
    expect(refused.code).toBe(exitCodes.failure)
    const line = refused.stderr.trim()
    expect(line.split('\n'), line).toHaveLength(1)
    expect(line).toContain(`${state} cannot be read: not JSON: starts with 'garbage where th…' (27 bytes, written `)
    expect(line).toMatch(/restore the file from a backup.*--fresh.*--reset-chain local-base/)
    expect(line).not.toMatch(/\n\s+at |\.ts:\d+|INTERNAL/)
    expect(snapshot(d)).toEqual(before)
    expect(anvilPids(d).filter(alive)).toEqual([])

    const reset = await serveReady(['--data-dir', d, '--port', '0', '--reset-chain', 'local-base'])
    try {
      expect(reset.stderr()).toMatch(
        /local-base starts over from an empty chain \(--reset-chain\); its old state file is kept at .*local-base\.json\.reset-\d+.*disagree/,
      )
      const aside = readdirSync(join(d, 'chains')).find((f) => f.startsWith('local-base.json.reset-'))!
      expect(readFileSync(join(d, 'chains', aside), 'utf8')).toBe('garbage where the chain was')
      // The chain started over works: its contracts were deployed again and the faucet mints on it.
      expect(
        (
          await post(reset.ready.urls.api, '/api/local/faucet', {
            to: '0x00000000000000000000000000000000000000aa',
            token: 'USDC',
            amount: '1',
          })
        ).status,
      ).toBe(200)
    } finally {
      await reset.stop()
    }
    expect(existsSync(state)).toBe(true)

    const unknown = await serveFails(['--data-dir', d, '--port', '0', '--reset-chain', 'local-solana'])
    expect(unknown.code).toBe(exitCodes.usage)
    expect(unknown.stderr.trim()).toMatch(/--reset-chain local-solana: .*parx\.db.*local-base or local-radius/)
  }, 300_000) // four starts of parx serve
})
