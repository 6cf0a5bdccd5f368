import { PublicKey } from '@solana/web3.js'
import { nowSeconds } from '../../../src/sdk/x402/evm/authorization.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import { checkSplAuthorization, parseSplPayload, splReplayKey } from '../../../src/sdk/x402/svm/delegated-spl.js'
import { checkDelegatedAccount, tokenAccounts } from '../../../src/sdk/x402/svm/delegated-transfer.js'
import { methods } from '../../../src/sdk/x402/types.js'
import type { PaymentMethod } from '../method.js'
import type { SettlementStore } from '../settlements.js'
import type { SvmRuntime } from './runtime.js'
import { sendDelegatedTransfer } from './send-delegated.js'

/**
 * delegated-spl (docs/facilitator.md "x402 facilitator"): check the payer's ed25519 authorization and their token
 * account's
 * delegation, then move the price with transferChecked signed by the facilitator as delegate.
 * Nothing on chain records the nonce, so the settlement ledger is the replay guard.
 */
export function delegatedSplMethod(rt: () => SvmRuntime, store: SettlementStore): PaymentMethod {
  return {
    name: methods.delegatedSpl,
    family: 'solana',
    matches: (p) =>
      !('transaction' in p.payload) &&
      (p.requirements.extra.assetTransferMethod ?? methods.delegatedSpl) === methods.delegatedSpl,
    key(p) {
      const a = parseSplPayload(p.payload)
      return 'reason' in a ? a : splReplayKey(p.spec.caip2, a)
    },
    async check(p, purpose) {
      const a = parseSplPayload(p.payload)
      if ('reason' in a) return { ok: false, ...a }
      const local = checkSplAuthorization(a, p.requirements, nowSeconds())
      if (local) return { ok: false, payer: a.from, ...local }
      // At settle time this payment's own claim is the live row; at verify time any live row means spent.
      if (purpose === 'verify' && (await store.live(splReplayKey(p.spec.caip2, a)))) {
        return {
          ok: false,
          payer: a.from,
          reason: reasons.svmSplNonceUsed,
          message: `nonce ${a.nonce} of ${a.from} was already used`,
        }
      }
      const r = rt()
      const mint = new PublicKey(p.token.address)
      const programId = await r.tokenProgram(mint)
      if (!programId)
        return {
          ok: false,
          payer: a.from,
          reason: reasons.invalidPaymentRequirements,
          message: `mint ${mint.toBase58()} does not exist`,
        }
      const { source, destination } = tokenAccounts({ from: a.from, to: a.to, mint, programId })
      const [sourceInfo, destinationInfo] = await r.accounts([source, destination])
      const price = BigInt(p.requirements.amount)
      const chain = checkDelegatedAccount(sourceInfo ?? null, {
        source,
        mint,
        owner: a.from,
        delegate: r.signer.publicKey,
        price,
        programId,
      })
      if (chain) return { ok: false, payer: a.from, ...chain }
      return {
        ok: true,
        payer: a.from,
        execute: () =>
          sendDelegatedTransfer(r, {
            source,
            destination,
            to: a.to,
            mint,
            programId,
            amount: price,
            decimals: p.token.decimals,
            createDestination: !destinationInfo,
            nonce: a.nonce,
          }),
      }
    },
  }
}
