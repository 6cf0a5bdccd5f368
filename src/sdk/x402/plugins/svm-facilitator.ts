import { unpackMint } from '@solana/spl-token'
import { type Connection, type Keypair, PublicKey, TransactionMessage, VersionedTransaction } from '@solana/web3.js'
import type {
  PaymentPayload,
  PaymentRequirements,
  SchemeNetworkFacilitator,
  SettleResponse,
  VerifyResponse,
} from '@x402/core/types'
import { reasons } from '../reasons.js'
import { checkSplAuthorization, parseSplPayload, splReplayKey } from '../svm/delegated-spl.js'
import { checkDelegatedAccount, delegatedTransferInstructions, tokenAccounts } from '../svm/delegated-transfer.js'
import { landTransaction } from '../svm/land.js'
import { EXACT, methods } from '../types.js'
import { toPayment } from '../wire.js'

/** Where used delegated-spl nonces are kept. The default lives in memory: give a persistent one in production. */
export type NonceStore = {
  has(key: string): boolean | Promise<boolean>
  claim(key: string): boolean | Promise<boolean>
  release(key: string): void | Promise<void>
}

export function memoryNonceStore(): NonceStore {
  const used = new Set<string>()
  return {
    has: (k) => used.has(k),
    claim: (k) => (used.has(k) ? false : (used.add(k), true)),
    release: (k) => void used.delete(k),
  }
}

/**
 * `exact` on Solana with delegated-spl for @x402/core's x402Facilitator: verifies the payer's
 * ed25519 authorization and their token account's delegation to `signer`, and settles with
 * transferChecked signed by `signer` as delegate and fee payer. Nonces are claimed before sending.
 */
export class ParxSvmFacilitatorScheme implements SchemeNetworkFacilitator {
  readonly scheme = EXACT
  readonly caipFamily = 'solana:*'
  private readonly nonces: NonceStore

  constructor(private readonly o: { signer: Keypair; connection: Connection; nonces?: NonceStore; pollMs?: number }) {
    this.nonces = o.nonces ?? memoryNonceStore()
  }

  getExtra(): Record<string, unknown> {
    const me = this.o.signer.publicKey.toBase58()
    return { assetTransferMethod: methods.delegatedSpl, feePayer: me, delegate: me }
  }

  getSigners(): string[] {
    return [this.o.signer.publicKey.toBase58()]
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    const c = await this.check(payload, requirements, 'verify')
    return c.ok
      ? { isValid: true, payer: c.payer }
      : { isValid: false, invalidReason: c.reason, invalidMessage: c.message, payer: c.payer ?? '' }
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    const network = requirements.network
    const fail = (reason: string, message: string, payer = '', transaction = ''): SettleResponse => ({
      success: false,
      errorReason: reason,
      errorMessage: message,
      payer,
      transaction,
      network,
    })
    const c = await this.check(payload, requirements, 'settle')
    if (!c.ok) return fail(c.reason, c.message, c.payer)
    if (!(await this.nonces.claim(c.key)))
      return fail(reasons.duplicateSettlement, 'this authorization was already settled or is being settled', c.payer)
    const message = new TransactionMessage({
      payerKey: this.o.signer.publicKey,
      recentBlockhash: (await this.o.connection.getLatestBlockhash()).blockhash,
      instructions: c.instructions,
    }).compileToV0Message()
    const tx = new VersionedTransaction(message)
    tx.sign([this.o.signer])
    const landed = await landTransaction(this.o.connection, tx.serialize(), this.o.pollMs ?? 400)
    if (landed.state === 'ok') return { success: true, payer: c.payer, transaction: landed.signature, network }
    // Only a transaction that surely did not land frees its nonce.
    if (landed.state === 'failed') await this.nonces.release(c.key)
    return fail(
      landed.state === 'pending' ? reasons.settlementPending : reasons.svmTransactionFailed,
      landed.state === 'pending' ? 'not confirmed yet' : landed.message,
      c.payer,
      landed.signature ?? '',
    )
  }

  private async check(payload: PaymentPayload, requirements: PaymentRequirements, purpose: 'verify' | 'settle') {
    const pay = toPayment(payload as never, requirements as never)
    if ('malformed' in pay)
      return {
        ok: false as const,
        reason: reasons.invalidPayload,
        message: `${pay.field} is missing or malformed`,
        payer: '',
      }
    const a = parseSplPayload(pay.payload)
    if ('reason' in a) return { ok: false as const, ...a, payer: '' }
    const local = checkSplAuthorization(a, pay.requirements, BigInt(Math.floor(Date.now() / 1000)))
    if (local) return { ok: false as const, ...local, payer: a.from }
    const key = splReplayKey(pay.requirements.network, a)
    if (purpose === 'verify' && (await this.nonces.has(key)))
      return {
        ok: false as const,
        reason: reasons.svmSplNonceUsed,
        message: `nonce ${a.nonce} was already used`,
        payer: a.from,
      }
    const mint = new PublicKey(pay.requirements.asset)
    const mintInfo = await this.o.connection.getAccountInfo(mint)
    if (!mintInfo)
      return {
        ok: false as const,
        reason: reasons.invalidPaymentRequirements,
        message: `mint ${mint.toBase58()} does not exist`,
        payer: a.from,
      }
    const programId = mintInfo.owner
    const decimals = unpackMint(mint, mintInfo, programId).decimals
    const { source, destination } = tokenAccounts({ from: a.from, to: a.to, mint, programId })
    const [sourceInfo, destinationInfo] = await this.o.connection.getMultipleAccountsInfo([source, destination])
    const price = BigInt(pay.requirements.amount)
    const bad = checkDelegatedAccount(sourceInfo ?? null, {
      source,
      mint,
      owner: a.from,
      delegate: this.o.signer.publicKey,
      price,
      programId,
    })
    if (bad) return { ok: false as const, ...bad, payer: a.from }
    const instructions = delegatedTransferInstructions({
      feePayer: this.o.signer.publicKey,
      source,
      destination,
      to: a.to,
      mint,
      programId,
      amount: price,
      decimals,
      createDestination: !destinationInfo,
      nonce: a.nonce,
    })
    return { ok: true as const, payer: a.from, key, instructions }
  }
}
