import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAnvilChain } from '../../../test/helpers/anvil-chain.js'
import { startAnvil } from './anvil.js'

/** Process group and session of a pid, from /proc (fields 5 and 6 of its stat line). */
const groupOf = (pid: number) => {
  const [pgrp, session] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').slice(2, 4).map(Number)
  return { pgrp, session }
}

describe.runIf(process.platform === 'linux')('the embedded anvil process', () => {
  const anvil = useAnvilChain()
  const { rpc } = anvil

  it('is anvil itself, in a process group of its own (Ctrl-C on the terminal misses it) but in the daemon session', () => {
    expect(readFileSync(`/proc/${anvil.pid}/comm`, 'utf8').trim()).toBe('anvil')
    const child = groupOf(anvil.pid)
    const daemon = groupOf(process.pid)
    expect(child.pgrp).toBe(anvil.pid)
    expect(child.pgrp).not.toBe(daemon.pgrp)
    // One session, so the kernel's autogroup scheduling shares the CPU between anvil and the daemon
    // thread by thread, not half to anvil's own session and half to everything else.
    expect(child.session).toBe(daemon.session)
    expect(readFileSync(`/proc/${anvil.pid}/autogroup`, 'utf8')).toBe(readFileSync('/proc/self/autogroup', 'utf8'))
  })

  it('keeps the state of the last 500 blocks in memory and writes none to disk', async () => {
    const hex = (n: number) => `0x${n.toString(16)}`
    await rpc('anvil_mine', [hex(520)])
    const head = Number(await rpc<string>('eth_blockNumber'))
    const zero = '0x0000000000000000000000000000000000000001'
    expect(await rpc('eth_getBalance', [zero, hex(head - 400)])).toBeDefined()
    // Older states are dropped, not written out: anvil's default would answer this from a JSON file
    // per block under ~/.foundry/anvil/tmp, which it never removes.
    await expect(rpc('eth_getBalance', [zero, hex(head - 510)])).rejects.toThrow(/block height|out of range|not found/i)
  })
})

describe.runIf(process.platform === 'linux')('the embedded anvil state file writer', () => {
  it('starts once dumpsAfter resolves (the daemon passes its ready line), not before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parx-anvil-dumps-after-'))
    const statePath = join(dir, 'chain.json')
    let go!: () => void
    const anvil = await startAnvil({
      chainId: 31337,
      statePath,
      dumpsAfter: new Promise<void>((resolve) => (go = resolve)),
    })
    try {
      // A running writer writes a new chain's state within half a second (its start counts as a change).
      await new Promise((r) => setTimeout(r, 1_500))
      expect(existsSync(statePath)).toBe(false)
      go()
      while (!existsSync(statePath)) await new Promise((r) => setTimeout(r, 50))
    } finally {
      await anvil.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
