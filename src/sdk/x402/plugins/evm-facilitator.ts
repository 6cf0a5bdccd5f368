import type {
  PaymentPayload,
  PaymentRequirements,
  SchemeNetworkFacilitator,
  SettleResponse,
  VerifyResponse,
} from '@x402/core/types'
import { getAddress, type Hex, isHex, type PublicClient } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { parseEvmAuthorization } from '../evm/authorization.js'
import { BATCH_BASE_GAS, decodeExecute, encodeExecute, failedGroups, GROUP_GAS } from '../evm/executor.js'
import { ensureExecutor } from '../evm/executor-setup.js'
import { explainRevert } from '../evm/revert.js'
import { evmChainId } from '../evm/typed-data.js'
import { planEvmPayment, replayKey, type Simulate } from '../evm/verify.js'
import { reasons } from '../reasons.js'
import { EXACT, methods } from '../types.js'
import { toPayment } from '../wire.js'

/**
 * `exact` on EVM for @x402/core's x402Facilitator, settling erc2612 (permit then transferFrom in
 * one transaction) and eip3009 the way the parx daemon does: the facilitator key delegates to
 * X402BatchExecutor (EIP-7702), so it is the permit's spender and pays the gas. One payment per
 * transaction here; the daemon adds batching and a persistent settle-once ledger.
 *
 * @example
 * new x402Facilitator().register('eip155:84532', new ParxEvmFacilitatorScheme({ account, clients: [publicClient] }))
 */
export class ParxEvmFacilitatorScheme implements SchemeNetworkFacilitator {
  readonly scheme = EXACT
  readonly caipFamily = 'eip155:*'
  private readonly ready = new Map<number, Promise<unknown>>()
  private readonly inFlight = new Set<string>()
  private tail: Promise<unknown> = Promise.resolve()

  constructor(private readonly o: { account: PrivateKeyAccount; clients: PublicClient[] }) {}

  getExtra(): Record<string, unknown> {
    return { assetTransferMethod: methods.erc2612, spender: this.o.account.address }
  }

  getSigners(): string[] {
    return [this.o.account.address]
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    const p = await this.plan(payload, requirements, true)
    return p.ok
      ? { isValid: true, payer: p.payer }
      : { isValid: false, invalidReason: p.reason, invalidMessage: p.message, payer: p.payer ?? '' }
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
    const p = await this.plan(payload, requirements, true)
    if (!p.ok) return fail(p.reason, p.message, p.payer)
    if (this.inFlight.has(p.key))
      return fail(reasons.duplicateSettlement, 'this authorization is being settled by another request', p.payer)
    this.inFlight.add(p.key)
    try {
      const { hash, receipt } = await this.send(p.client, p.chainId, p.data)
      if (receipt.status !== 'success')
        return fail(reasons.evmTransactionFailed, `transaction ${hash} reverted`, p.payer, hash)
      const revert = failedGroups(receipt.logs, this.o.account.address).get(0)
      if (revert !== undefined) return fail(explainRevert(revert).reason, explainRevert(revert).message, p.payer, hash)
      return { success: true, payer: p.payer, transaction: hash, network }
    } catch (e) {
      return fail(reasons.unexpectedSettleError, (e as Error).message, p.payer)
    } finally {
      this.inFlight.delete(p.key)
    }
  }

  private async plan(payload: PaymentPayload, requirements: PaymentRequirements, simulate: boolean) {
    const pay = toPayment(payload as never, requirements as never)
    if ('malformed' in pay)
      return {
        ok: false as const,
        reason: reasons.invalidPayload,
        message: `${pay.field} is missing or malformed`,
        payer: '',
      }
    const chainId = evmChainId(pay.requirements.network)
    const client = this.o.clients.find((c) => c.chain?.id === chainId)
    if (!chainId || !client)
      return {
        ok: false as const,
        reason: reasons.invalidNetwork,
        message: `no client for ${pay.requirements.network}`,
        payer: '',
      }
    const atm = pay.requirements.extra.assetTransferMethod
    const nonce = (pay.payload.authorization as { nonce?: unknown } | undefined)?.nonce
    const method =
      atm === methods.erc2612 || atm === methods.eip3009
        ? atm
        : typeof nonce === 'string' && isHex(nonce) && nonce.length === 66
          ? methods.eip3009
          : methods.erc2612
    await this.readyOn(client, chainId)
    const account = this.o.account.address
    const sim: Simulate = async (groups) =>
      decodeExecute(
        (await client.request({
          method: 'eth_call',
          params: [{ from: account, to: account, data: encodeExecute(groups) }, 'latest'],
        })) as Hex,
      )
    const plan = await planEvmPayment({
      method,
      payload: pay.payload,
      requirements: pay.requirements,
      spender: account,
      simulate: simulate ? sim : undefined,
    })
    if (!plan.ok) return { ...plan, ok: false as const }
    const auth = parseEvmAuthorization(pay.payload, method === methods.eip3009 ? 'bytes32' : 'uint')
    const key =
      'reason' in auth ? '' : replayKey(method, pay.requirements.network, getAddress(pay.requirements.asset), auth)
    return { ok: true as const, payer: plan.payer, key, client, chainId, data: encodeExecute([plan.group]) }
  }

  private readyOn(client: PublicClient, chainId: number) {
    let r = this.ready.get(chainId)
    if (!r)
      this.ready.set(
        chainId,
        (r = this.serial(() => ensureExecutor(client, this.o.account, chainId)).catch(
          (e) => (this.ready.delete(chainId), Promise.reject(e)),
        )),
      )
    return r
  }

  /** One transaction at a time from the key, each with the node's pending nonce: simple and never colliding. */
  private send(client: PublicClient, chainId: number, data: Hex) {
    return this.serial(async () => {
      const account = this.o.account
      const [nonce, fees] = await Promise.all([
        client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
        client.estimateFeesPerGas(),
      ])
      const signed = await account.signTransaction({
        chainId,
        type: 'eip1559',
        to: account.address,
        data,
        gas: BATCH_BASE_GAS + GROUP_GAS,
        nonce,
        maxFeePerGas: fees.maxFeePerGas * 2n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      })
      const hash = (await client.request({ method: 'eth_sendRawTransaction', params: [signed] })) as Hex
      return { hash, receipt: await client.waitForTransactionReceipt({ hash }) }
    })
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn)
    this.tail = next.catch(() => undefined)
    return next
  }
}
