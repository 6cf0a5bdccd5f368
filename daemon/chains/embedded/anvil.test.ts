import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from './anvil.js'

/** Process group and session of a pid, from /proc (fields 5 and 6 of its stat line). */
const groupOf = (pid: number) => {
  const [pgrp, session] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').slice(2, 4).map(Number)
  return { pgrp, session }
}

describe.runIf(process.platform === 'linux')('the embedded anvil process', () => {
  let anvil: Anvil
  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 84530017 })
  })
  afterAll(async () => anvil?.stop())

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
})
