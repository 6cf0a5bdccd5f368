import { loadavg } from 'node:os'
import { cpuUsage } from 'node:process'
import { type Hex, hashTypedData, isAddressEqual, recoverTypedDataAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { isSignedBy } from '../src/sdk/evm-signer.js'
import { voucherTypedData } from '../src/sdk/x402/evm/batch-settlement/contracts.js'
import { voucherDigest } from '../src/sdk/x402/evm/batch-settlement/voucher-digest.js'
import { report } from './lib.js'

const VOUCHERS = 300
const CHAIN = 8453

/**
 * The seller's local voucher signature check in isolation (no HTTP, no store), CPU per voucher:
 * viem's recoverTypedDataAddress (noble, JavaScript) against ours (voucher-digest.ts and
 * libsecp256k1's recovery, evm-signer.ts). The EIP-712 digest alone: viem's hashTypedData
 * against voucher-digest.ts. CPU time of this process, so other load on the machine matters less.
 * Run compiled (`npm run bench`): under tsx, viem's recovery also paid ~0.9 ms for the `import()` it
 * makes per call (a round trip to the loader hooks' thread; ~0.05 ms in plain node).
 */
export async function benchBatchSettlementVerify(): Promise<void> {
  const buyer = privateKeyToAccount(generatePrivateKey())
  const channelId = `0x${'5a'.repeat(32)}` as Hex
  const vouchers: { amount: bigint; signature: Hex }[] = []
  for (let i = 1; i <= VOUCHERS; i++) {
    const amount = BigInt(i) * 1000n
    vouchers.push({ amount, signature: await buyer.signTypedData(voucherTypedData(CHAIN, channelId, amount)) })
  }
  const cpuPer = async (f: (v: { amount: bigint; signature: Hex }) => unknown) => {
    for (const v of vouchers.slice(0, 20)) await f(v)
    const t = cpuUsage()
    for (const v of vouchers) await f(v)
    const used = cpuUsage(t)
    return (used.user + used.system) / 1000 / VOUCHERS
  }
  const recovered = await cpuPer(async (v) => {
    if (
      !isAddressEqual(
        await recoverTypedDataAddress({ ...voucherTypedData(CHAIN, channelId, v.amount), signature: v.signature }),
        buyer.address,
      )
    )
      throw new Error('recovery failed')
  })
  // The first check compiles libsecp256k1's module (~40 ms): cpuPer's warm-up vouchers take it.
  const ours = await cpuPer((v) => {
    if (!isSignedBy(buyer.address, voucherDigest(CHAIN, channelId, v.amount), v.signature))
      throw new Error('verification failed')
  })
  const viemDigest = await cpuPer((v) => hashTypedData(voucherTypedData(CHAIN, channelId, v.amount)))
  const ourDigest = await cpuPer((v) => voucherDigest(CHAIN, channelId, v.amount))
  const conditions = { vouchers: VOUCHERS, loadAverage1m: Math.round(loadavg()[0]! * 100) / 100 }
  report('batch_verify.recover_typed_data_cpu', recovered, 'ms', {
    note: 'viem recoverTypedDataAddress + compare, per voucher',
    ...conditions,
  })
  report('batch_verify.libsecp256k1_cpu', ours, 'ms', {
    note: 'digest + libsecp256k1 recovery + compare, per voucher',
    ...conditions,
  })
  report('batch_verify.ratio.libsecp256k1_to_viem', ours / recovered, 'x')
  report('batch_verify.digest_viem_cpu', viemDigest * 1000, 'us')
  report('batch_verify.digest_ours_cpu', ourDigest * 1000, 'us')
}
