import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { loopbackOnlyFlags } from './loopback-only.js'

/** Each way a program may ask Node to listen on every address (alto's is the first). */
const PROGRAM = `
import net from 'node:net'
const asks = [
  (s, cb) => s.listen({ port: 0, host: '0.0.0.0' }, cb),
  (s, cb) => s.listen({ port: 0, host: '::' }, cb),
  (s, cb) => s.listen({ port: 0 }, cb),
  (s, cb) => s.listen(0, cb),
  (s, cb) => s.listen(0, '0.0.0.0', cb),
  (s, cb) => s.listen(0, '::', 511, cb),
  (s, cb) => s.listen(0, 511, cb),
  (s, cb) => s.listen('0', cb),
  (s, cb) => s.listen(cb),
]
const bound = []
for (const ask of asks) await new Promise((r) => { const s = net.createServer(); ask(s, () => { bound.push(s.address().address); s.close(r) }) })
console.log(JSON.stringify(bound))
`

const run = (flags: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, [...flags, '--input-type=module', '-e', PROGRAM], {
      env: { ...process.env, NODE_OPTIONS: '' },
    }).toString(),
  ) as string[]

describe('loopbackOnlyFlags', () => {
  it('binds every TCP listen of the child to 127.0.0.1, however it asks for all addresses', () => {
    const unpatched = run([])
    expect(unpatched.filter((a) => a !== '127.0.0.1')).toHaveLength(9)
    expect(run(loopbackOnlyFlags())).toEqual(Array(9).fill('127.0.0.1'))
  })
})
