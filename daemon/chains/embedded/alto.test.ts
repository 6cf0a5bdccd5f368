import { readFileSync } from 'node:fs'
import { keccak256, parseEther, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestChain, type TestChain } from '../../../contracts/evm/testing/chain.js'
import { listeningAddresses } from '../../../test/helpers/listening.js'
import { ENTRY_POINT_08 } from '../../buyer/aa/canonical.js'
import { deployAa } from '../../buyer/aa/deploy.js'
import { startAlto } from './alto.js'
import { freePort } from './free-port.js'

const key = (label: string) => keccak256(toHex(`parx alto test ${label}`))
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// Alto refuses to start without an EntryPoint on the chain, so this needs the EntryPoint artifacts too.
describe('alto process', () => {
  let tc: TestChain
  beforeAll(async () => {
    tc = await startTestChain()
    await deployAa({
      client: tc.client,
      deployer: tc.wallet(tc.accounts.deployer),
      sponsor: tc.accounts.solver.address,
    })
    for (const k of ['executor', 'utility'])
      await tc.testClient.setBalance({ address: privateKeyToAccount(key(k)).address, value: parseEther('10') })
  }, 30_000)
  afterAll(async () => tc?.stop())

  it('starts on a free port, answers JSON-RPC on 127.0.0.1, and stops for good', async () => {
    const alto = await startAlto({
      rpcUrl: tc.anvil.rpcUrl,
      entryPoints: [ENTRY_POINT_08],
      executorKeys: [key('executor')],
      utilityKey: key('utility'),
    })
    expect(alto.url).toBe(`http://127.0.0.1:${alto.port}/rpc`)
    // Issue 39 item 6: reachable on loopback only (alto asks for 0.0.0.0), as the kernel's socket table says.
    expect(listeningAddresses(alto.port)).toEqual(['127.0.0.1'])
    // Its keys are on no command line, which every local user can read.
    const cmdline = readFileSync(`/proc/${alto.pid}/cmdline`, 'utf8')
    expect(cmdline).toContain('alto')
    for (const k of [key('executor'), key('utility')])
      expect(cmdline.toLowerCase()).not.toContain(k.slice(2).toLowerCase())
    const res = await fetch(alto.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    expect(((await res.json()) as { result: string }).result).toBe(toHex(tc.chain.id))
    await alto.stop()
    await alto.stop() // idempotent
    expect(alive(alto.pid)).toBe(false)
  }, 60_000)

  it('a chain that does not answer: BUNDLER_UNAVAILABLE within the bound, nothing left running', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`
    const e = await startAlto({
      rpcUrl: dead,
      entryPoints: [ENTRY_POINT_08],
      executorKeys: [key('executor')],
      utilityKey: key('utility'),
      readyTimeoutMs: 15_000,
    }).catch((x) => x)
    expect(e).toMatchObject({ code: 'BUNDLER_UNAVAILABLE' })
    expect(e.message).toMatch(/alto (exited|did not answer)/)
  }, 60_000)
})
