import { describe, expect, it } from 'vitest'
import { processLock } from './lock.js'

describe('processLock', () => {
  it('runs sections of one key one at a time, in order, and other keys alongside', async () => {
    const lock = processLock()
    const log: string[] = []
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const a1 = lock.run('a', async () => {
      log.push('a1 start')
      await gate
      log.push('a1 end')
    })
    const a2 = lock.run('a', async () => {
      log.push('a2')
    })
    const b = lock.run('b', async () => {
      log.push('b')
    })
    await b
    expect(log).toEqual(['a1 start', 'b'])
    release()
    await Promise.all([a1, a2])
    expect(log).toEqual(['a1 start', 'b', 'a1 end', 'a2'])
  })

  it('a failing section releases the key and reports its error', async () => {
    const lock = processLock()
    await expect(
      lock.run('k', async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(await lock.run('k', async () => 7)).toBe(7)
  })
})
