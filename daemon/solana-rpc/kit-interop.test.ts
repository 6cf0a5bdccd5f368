import {
  AccountRole,
  address,
  airdropFactory,
  appendTransactionMessageInstruction,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type TransactionSigner,
} from '@solana/kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestCluster, type TestCluster, tempDir } from './testing.js'

let cluster: TestCluster
const dir = tempDir()
beforeAll(async () => {
  cluster = await startTestCluster(`${dir.dir}/svm.db`)
})
afterAll(async () => {
  await cluster?.stop()
  dir.remove()
})

/** System program Transfer (instruction 2, u64 lamports), written out so the test needs no program client. */
function transferSol(source: TransactionSigner, destination: string, amount: bigint) {
  const data = new Uint8Array(12)
  const view = new DataView(data.buffer)
  view.setUint32(0, 2, true)
  view.setBigUint64(4, amount, true)
  return {
    programAddress: address('11111111111111111111111111111111'),
    accounts: [
      { address: source.address, role: AccountRole.WRITABLE_SIGNER, signer: source },
      { address: address(destination), role: AccountRole.WRITABLE },
    ],
    data,
  }
}

describe('@solana/kit against the embedded RPC', () => {
  it('airdrops, sends and confirms over subscriptions, and reads balances exactly', async () => {
    const rpc = createSolanaRpc(cluster.rpc.rpcUrl)
    const rpcSubscriptions = createSolanaRpcSubscriptions(cluster.rpc.wsUrl)
    const payer = await generateKeyPairSigner()
    const recipient = await generateKeyPairSigner()
    await airdropFactory({ rpc, rpcSubscriptions })({
      recipientAddress: payer.address,
      lamports: lamports(2_000_000_000n),
      commitment: 'confirmed',
    })
    expect((await rpc.getBalance(payer.address).send()).value).toBe(2_000_000_000n)

    const { value: blockhash } = await rpc.getLatestBlockhash().send()
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstruction(transferSol(payer, recipient.address, 123_456_789n), m),
    )
    const signed = await signTransactionMessageWithSigners(message)
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(signed as never, { commitment: 'confirmed' })

    expect((await rpc.getBalance(recipient.address).send()).value).toBe(123_456_789n)
    expect((await rpc.getBalance(payer.address).send()).value).toBe(2_000_000_000n - 123_456_789n - 5_000n)
    const status = await rpc.getSignatureStatuses([getSignatureFromTransaction(signed)]).send()
    expect(status.value[0]?.err).toBeNull()
  })
})
