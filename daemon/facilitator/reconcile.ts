import { decodeFunctionResult, encodeFunctionData, getAddress, type Hex, isAddress } from 'viem'
import { tokenAbi } from '../../src/sdk/x402/evm/calls.js'
import { permit2Abi } from '../../src/sdk/x402/evm/permit2.js'
import { reasons } from '../../src/sdk/x402/reasons.js'
import type { FacilitatorDeps } from './deps.js'
import { networkByName } from './resolve.js'
import type { SettlementRow, SettlementStore } from './settlements.js'

const STOPPED = 'the daemon stopped before this settlement finished, and the chain shows it did not happen'

/**
 * Settlements a previous run left pending (it stopped between claim and answer) are decided from
 * the chain: an EVM authorization is settled iff its nonce is consumed; a Solana one iff its
 * transaction landed. Undecidable rows stay pending, so their authorization can never pay twice.
 */
export async function reconcilePending(
  s: FacilitatorDeps,
  store: SettlementStore,
  select: (row: SettlementRow) => boolean,
): Promise<void> {
  for (const row of (await store.pending()).filter(select)) {
    try {
      // A transaction the node still holds unmined may yet consume the authorization: not decidable now.
      if (await inMempool(s, row)) continue
      const fate = await fateOf(s, row)
      if (fate === 'settled') await store.settled(row.id, row.tx ?? '', row.payer ?? '')
      else if (fate === 'failed')
        await store.failed(row.id, { reason: reasons.unexpectedSettleError, message: STOPPED })
    } catch (e) {
      s.log.warn({ err: e, id: row.id }, 'x402 settlement left pending: the chain could not be read')
    }
  }
}

const LOST =
  'the transaction that settled this payment was lost by the chain and ' +
  'could not land again; nothing was paid: settle the same payload again'

/**
 * Settled rows whose transaction the outbox had to broadcast again (the chain lost it) or decided
 * failed: each payment is decided again from the chain (is its authorization consumed?). One that
 * did not happen is failed, which releases the authorization so the same payload can settle again.
 * One broadcast again but not mined yet is undecided: it is pending again (its authorization stays
 * claimed) and handed to `follow`, as a settle answered `settlement_pending` is.
 */
export async function reconcileReplayed(
  s: FacilitatorDeps,
  store: SettlementStore,
  txs: string[],
  follow: (row: SettlementRow) => void,
): Promise<void> {
  for (const row of await store.settledIn(txs)) {
    try {
      if (await inMempool(s, row)) {
        if (await store.reopen(row.id)) follow({ ...row, state: 'pending' })
        continue
      }
      const fate = await evmFate(s, row)
      if (fate === 'failed')
        await store.failed(row.id, { reason: reasons.unexpectedSettleError, message: LOST, tx: row.tx ?? undefined })
    } catch (e) {
      s.log.warn(
        { err: e, id: row.id },
        'x402 settlement of a replayed transaction not decided: the chain could not be read',
      )
    }
  }
}

/** Judged by the row's network, not its method: `upto` names an EVM method and a Solana one alike. */
export const isEvmRow = (row: Pick<SettlementRow, 'network'>) => networkByName(row.network)?.family === 'evm'

/** Whether the payment of a row happened, read from the chain (its authorization consumed, its transaction landed). */
export const fateOf = (s: FacilitatorDeps, row: SettlementRow) => (isEvmRow(row) ? evmFate(s, row) : svmFate(s, row))

/** An EVM row's transaction is known to the node but not mined (mining paused, fees too low). */
async function inMempool(s: FacilitatorDeps, row: SettlementRow): Promise<boolean> {
  const chain = isEvmRow(row) && row.tx ? s.evm[networkByName(row.network)?.key ?? ''] : undefined
  if (!chain) return false
  const hash = row.tx as Hex
  if ((await chain.client.request({ method: 'eth_getTransactionReceipt', params: [hash] })) !== null) return false
  return (await chain.client.request({ method: 'eth_getTransactionByHash', params: [hash] })) !== null
}

/**
 * Replay keys read `<caip2>:<token>:<from>:<permit|3009>:<nonce>`, or `<caip2>:<Permit2>:<from>:permit2:<nonce>`;
 * the CAIP-2 id has a colon of its own.
 */
export async function evmFate(s: FacilitatorDeps, row: SettlementRow): Promise<'settled' | 'failed' | 'unknown'> {
  const parts = row.auth_key.split(':')
  const [token, from, kind, nonce] = parts.slice(-4)
  const spec = networkByName(parts.slice(0, -4).join(':'))
  const chain = spec && s.evm[spec.key]
  if (!chain || !token || !from || !nonce || !isAddress(token) || !isAddress(from)) return 'unknown'
  const read = async (functionName: 'nonces' | 'authorizationState', args: readonly unknown[]) => {
    const data = encodeFunctionData({ abi: tokenAbi, functionName, args } as never)
    const ret = (await chain.client.request({
      method: 'eth_call',
      params: [{ to: getAddress(token), data }, 'latest'],
    })) as Hex
    return decodeFunctionResult({ abi: tokenAbi, functionName, data: ret })
  }
  if (kind === 'permit2') {
    const n = BigInt(nonce)
    const data = encodeFunctionData({ abi: permit2Abi, functionName: 'nonceBitmap', args: [getAddress(from), n >> 8n] })
    const ret = (await chain.client.request({
      method: 'eth_call',
      params: [{ to: getAddress(token), data }, 'latest'],
    })) as Hex
    const bitmap = decodeFunctionResult({ abi: permit2Abi, functionName: 'nonceBitmap', data: ret })
    return (bitmap >> (n & 255n)) & 1n ? 'settled' : 'failed'
  }
  const consumed =
    kind === 'permit'
      ? ((await read('nonces', [getAddress(from)])) as bigint) > BigInt(nonce)
      : ((await read('authorizationState', [getAddress(from), nonce])) as boolean)
  return consumed ? 'settled' : 'failed'
}

export async function svmFate(s: FacilitatorDeps, row: SettlementRow): Promise<'settled' | 'failed' | 'unknown'> {
  if (!row.tx) return 'unknown'
  const { value } = await s.solana.connection.getSignatureStatuses([row.tx], { searchTransactionHistory: true })
  const st = value[0]
  if (!st) return 'unknown'
  return st.err ? 'failed' : 'settled'
}
