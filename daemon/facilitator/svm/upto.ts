import { PublicKey } from '@solana/web3.js'
import { nowSeconds } from '../../../src/sdk/x402/evm/authorization.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import { checkDelegatedAccount, tokenAccounts } from '../../../src/sdk/x402/svm/delegated-transfer.js'
import { checkSplUpto, parseSplUptoPayload, splUptoReplayKey } from '../../../src/sdk/x402/svm/upto.js'
import { methods, UPTO } from '../../../src/sdk/x402/types.js'
import type { PaymentMethod } from '../method.js'
import type { SettlementStore } from '../settlements.js'
import type { SvmRuntime } from './runtime.js'
import { sendDelegatedTransfer } from './send-delegated.js'

/**
 * `upto` (metered) on Solana, ours: the reference's Solana upto needs its payment-channel program,
 * so this one rides on delegated-spl instead (src/sdk/x402/svm/upto.ts). Verify judges the signed
 * maximum (the requirements' `amount` must equal it) and that the delegation and balance cover it.
 * Settle receives `amount` = what the seller used: above the maximum it is refused and nothing is
 * sent; zero succeeds with no transaction (the ledger spends the nonce); anything else is checked
 * against the delegation and moved exactly, with transferChecked signed by the facilitator as
 * delegate. Nothing on chain records the nonce, so the ledger is the replay guard, as for delegated-spl.
 */
export function splUptoMethod(rt: () => SvmRuntime, store: SettlementStore): PaymentMethod {
  return {
    name: UPTO,
    scheme: UPTO,
    family: 'solana',
    // Only our form: the reference's channel payments name no delegated-spl and are not served.
    matches: (p) => !('transaction' in p.payload) && p.requirements.extra.assetTransferMethod === methods.delegatedSpl,
    key(p) {
      const a = parseSplUptoPayload(p.payload)
      return 'reason' in a ? a : splUptoReplayKey(p.spec.caip2, a)
    },
    async check(p, purpose) {
      const a = parseSplUptoPayload(p.payload)
      if ('reason' in a) return { ok: false, ...a }
      // At settle the requirements carry the amount used; the terms are judged against the maximum.
      const amount = BigInt(p.requirements.amount)
      const terms = purpose === 'verify' ? p.requirements : { ...p.requirements, amount: a.amount.toString() }
      const local = checkSplUpto(a, terms, nowSeconds())
      if (local) return { ok: false, payer: a.from, ...local }
      if (amount > a.amount) {
        return {
          ok: false,
          payer: a.from,
          reason: reasons.uptoSettlementExceedsAmount,
          message:
            `the seller asked to settle ${amount}, more than the ` +
            `${a.amount} the payer signed for; nothing was moved`,
        }
      }
      // At settle time this payment's own claim is the live row; at verify time any live row means spent.
      if (purpose === 'verify' && (await store.live(splUptoReplayKey(p.spec.caip2, a)))) {
        return {
          ok: false,
          payer: a.from,
          reason: reasons.svmSplNonceUsed,
          message: `upto nonce ${a.nonce} of ${a.from} was already used`,
        }
      }
      // Nothing used, nothing moved: the authorization is spent in the ledger only.
      if (amount === 0n) return { ok: true, payer: a.from, execute: async () => ({ ok: true, tx: '' }) }
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
      // Verify: the delegation covers the maximum; settle: the amount actually moved.
      const chain = checkDelegatedAccount(sourceInfo ?? null, {
        source,
        mint,
        owner: a.from,
        delegate: r.signer.publicKey,
        price: amount,
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
            amount,
            decimals: p.token.decimals,
            createDestination: !destinationInfo,
            nonce: a.nonce,
            form: UPTO,
          }),
      }
    },
  }
}
