import { createAssociatedTokenAccountIdempotentInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Keypair, type PublicKey } from '@solana/web3.js'
import { afterAll, describe, expect, it } from 'vitest'
import {
  configPda,
  decodeConfig,
  decodeFillRecord,
  fillInstruction,
  fillRecordPda,
} from '../../contracts/solana/client.js'
import { USDC } from '../../src/networks/registry.js'
import { deploymentStore } from '../chains/embedded/deployments.js'
import { ensureSettlementPrograms } from './settlement-programs.js'
import { startTestCluster, type TestCluster, tempDir } from './testing.js'

const dir = tempDir()
afterAll(() => dir.remove())

/** A real dest_settler fill through the cluster: proves the program is loaded and runs. */
async function fill(c: TestCluster, program: PublicKey, orderId: `0x${string}`) {
  const solver = c.keys.solver
  const mint = c.mints[USDC]!
  const recipient = Keypair.generate().publicKey
  const recipientToken = getAssociatedTokenAddressSync(mint, recipient)
  const now = BigInt(c.svm.clock.unixTimestamp(c.svm.tick()))
  await c.svm.sendInstructions(
    [
      createAssociatedTokenAccountIdempotentInstruction(solver.publicKey, recipientToken, recipient, mint),
      fillInstruction({
        program,
        solver: solver.publicKey,
        solverToken: getAssociatedTokenAddressSync(mint, solver.publicKey),
        recipientToken,
        mint,
        fill: {
          orderId,
          recipient,
          amount: 1_000n,
          claimant: `0x${'00'.repeat(12)}${'c1'.repeat(20)}`,
          fillDeadline: now + 3600n,
        },
      }),
    ],
    [solver],
  )
  return decodeFillRecord(c.svm.getAccount(fillRecordPda(program, orderId).toBase58())!.data)
}

describe('settlement programs on the embedded cluster', () => {
  it('loads both programs and configures the attestors on the first start, and reuses them on restart', async () => {
    const file = `${dir.dir}/parx.db`
    const attestors = [0, 1, 2].map(() => Keypair.generate().publicKey)
    const first = await startTestCluster(file)
    const admin = first.keys.mintAuthority
    const orderId = `0x${'ab'.repeat(32)}` as const
    let programs
    try {
      programs = await ensureSettlementPrograms({
        svm: first.svm,
        deployments: deploymentStore(first.store),
        admin,
        attestors,
      })
      const config = decodeConfig(first.svm.getAccount(configPda(programs.originSettler).toBase58())!.data)
      expect(config.attestors.map(String)).toEqual(attestors.map(String))
      expect(config.threshold).toBe(2)
      expect(config.admin.equals(admin.publicKey)).toBe(true)
      expect((await fill(first, programs.destSettler, orderId)).amount).toBe(1_000n)
    } finally {
      await first.stop()
    }

    const second = await startTestCluster(file, { keys: first.keys })
    try {
      const configBefore = second.svm.getAccount(configPda(programs.originSettler).toBase58())!.data
      const again = await ensureSettlementPrograms({
        svm: second.svm,
        deployments: deploymentStore(second.store),
        admin,
        attestors,
      })
      expect(again.originSettler.equals(programs.originSettler)).toBe(true)
      expect(again.destSettler.equals(programs.destSettler)).toBe(true)
      expect(second.svm.getAccount(configPda(again.originSettler).toBase58())!.data).toEqual(configBefore)
      // The fill record survived the restart, so the same order cannot be filled twice...
      await expect(fill(second, again.destSettler, orderId)).rejects.toThrow(/0x14|Custom.*20|custom program error/)
      // ...and the reloaded program still fills new orders.
      expect((await fill(second, again.destSettler, `0x${'cd'.repeat(32)}`)).amount).toBe(1_000n)

      // Other attestor keys cannot rewrite a config: origin_settler moves to a fresh id.
      const others = [0, 1, 2].map(() => Keypair.generate().publicKey)
      const moved = await ensureSettlementPrograms({
        svm: second.svm,
        deployments: deploymentStore(second.store),
        admin,
        attestors: others,
      })
      expect(moved.originSettler.equals(programs.originSettler)).toBe(false)
      expect(
        decodeConfig(second.svm.getAccount(configPda(moved.originSettler).toBase58())!.data).attestors.map(String),
      ).toEqual(others.map(String))
    } finally {
      await second.stop()
    }
  })
})
