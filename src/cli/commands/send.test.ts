import { describe, expect, it } from 'vitest'
import { label } from '../context.js'
import { AGENT_KEY, fakeDeps } from './fake-platform.js'
import * as send from './send.js'

describe('send, as text', () => {
  it('every label has room: `user operation` (14 characters) is not glued to its value', async () => {
    const d = fakeDeps({ agentKey: AGENT_KEY }, { output: 'text' })
    const r = await send.run({ to: '0x4444444444444444444444444444444444444444', amount: '1' }, d)
    const lines = send.human(r.data, d.ctx)
    expect(lines[1]).toMatch(/^transaction {5}0x/)
    expect(lines[2]).toMatch(/^user operation {2}0x/)
    // Values line up, and a label longer than the column still gets two spaces.
    expect(lines[1]!.indexOf('0x')).toBe(lines[2]!.indexOf('0x'))
    expect(label(d.ctx, 'a-very-long-network-key')).toBe('a-very-long-network-key  ')
  })
})
