import { Keypair } from '@solana/web3.js'
import { describe, expect, it } from 'vitest'
import { TOKEN_A, USDC } from '../src/networks/registry.js'
import { startTestDaemon } from './helpers/daemon.js'
import { solClient } from './helpers/sol.js'

describe('Solana swaps across a restart', () => {
  it('keeps balances, the swap record and its confirmation; the same wallet swaps again', async () => {
    const user = Keypair.generate()
    const first = await startTestDaemon()
    const { dataDir } = first
    let signature: string
    let balances: unknown
    let solverBalances: unknown
    try {
      const c = await solClient(first)
      await c.fund(user.publicKey, USDC, '40')
      ;({ signature } = await c.swap(user, { uiAmount: '15', in: USDC, out: TOKEN_A }))
      balances = (await first.call('/api/sol/balance', { query: { owner: user.publicKey.toBase58() } })).tokens
      solverBalances = (await first.call('/api/sol/balance', { query: { owner: c.solver.toBase58() } })).tokens
      expect(balances).toMatchObject({ USDC: { raw: '25000000' }, PUSD: { raw: '15000000000' } })
    } finally {
      await first.close({ keepData: true })
    }

    const second = await startTestDaemon({ dataDir })
    try {
      const c = await solClient(second)
      expect((await second.call('/api/sol/balance', { query: { owner: user.publicKey.toBase58() } })).tokens).toEqual(
        balances,
      )
      expect((await second.call('/api/sol/balance', { query: { owner: c.solver.toBase58() } })).tokens).toEqual(
        solverBalances,
      )
      expect(await c.tokenBalance(user.publicKey, TOKEN_A)).toBe(15_000_000_000n)
      expect((await c.get(`/api/sol/confirm?sig=${signature}`)).body).toMatchObject({
        status: 'included',
        success: true,
      })
      expect((await second.call('/api/sol/recent')).swaps[0]).toMatchObject({ signature, status: 'confirmed' })

      const { built } = await c.swap(user, { uiAmount: '25', in: USDC, out: TOKEN_A })
      expect(built.createsTokenAccount).toBe(false)
      expect(await c.tokenBalance(user.publicKey, TOKEN_A)).toBe(40_000_000_000n)
      expect(await c.tokenBalance(user.publicKey, USDC)).toBe(0n)
    } finally {
      await second.close()
    }
  })
})
