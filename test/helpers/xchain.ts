import { Keypair, Transaction } from '@solana/web3.js'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { attestationStore } from '../../daemon/xchain/attestation-store.js'
import { collectQuorum } from '../../daemon/xchain/attestors/quorum.js'
import type { TestDaemon } from './daemon.js'
import { type SolClient, solClient } from './sol.js'

export type XchainClient = SolClient & {
  /** Base balance of `owner` in base units. */
  baseBalance(owner: Address, symbol: string): Promise<bigint>
  /** A fresh Base address (checksummed) that nobody funds. */
  newRecipient(): Address
  /** Builds a sol-origin order through the API (no submit). */
  build(user: Keypair, body: Record<string, unknown>): Promise<{ status: number; body: any }>
  /** Signs txB64 as `user`, submits it and waits for confirmation. */
  submit(user: Keypair, built: any): Promise<string>
  status(orderId: string, rail?: string): Promise<{ status: number; body: any }>
  /** Polls status until `until(body)` holds, or throws after `timeoutMs` naming the last answer. */
  waitStatus(orderId: string, until: (b: any) => boolean, timeoutMs?: number): Promise<any>
  operator(path: string, body?: unknown, method?: string): Promise<{ status: number; body: any }>
}

export async function xchainClient(d: TestDaemon): Promise<XchainClient> {
  const c = await solClient(d)
  const base = d.services.base
  const x: XchainClient = {
    ...c,
    baseBalance: (owner, symbol) =>
      base.client.readContract({
        address: base.tokens[symbol]!.address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [owner],
      }),
    newRecipient: () => privateKeyToAccount(generatePrivateKey()).address,
    build: (user, body) => c.post('/api/xchain/sol-origin/open/build', { user: user.publicKey.toBase58(), ...body }),
    async submit(user, built) {
      const tx = Transaction.from(Buffer.from(built.txB64, 'base64'))
      tx.partialSign(user)
      const signature = await c.connection.sendRawTransaction(tx.serialize())
      const { value } = await c.connection.confirmTransaction({
        signature,
        blockhash: built.blockhash,
        lastValidBlockHeight: built.lastValidBlockHeight,
      })
      if (value.err) throw new Error(`open ${signature} failed: ${JSON.stringify(value.err)}`)
      return signature
    },
    status: (orderId, rail) => c.get(`/api/xchain/status/${orderId}${rail ? `?rail=${rail}` : ''}`),
    async waitStatus(orderId, until, timeoutMs = 60_000) {
      const end = Date.now() + timeoutMs
      let last: any
      for (;;) {
        last = (await x.status(orderId)).body
        if (until(last)) return last
        if (Date.now() > end)
          throw new Error(`order ${orderId} did not reach the expected status; last answer: ${JSON.stringify(last)}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    },
    operator: (path, body, method = 'POST') =>
      d.raw(path, {
        method,
        headers: { 'content-type': 'application/json', ...d.operatorHeaders() },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  }
  return x
}

/** Moves the embedded Solana cluster's clock past `unixSeconds` (slots of 400 ms), so an order expires without waiting. */
export async function passSolanaTime(d: TestDaemon, x: XchainClient, unixSeconds: number): Promise<void> {
  const { solanaNow } = await import('../../daemon/xchain/rails/sol-origin/chain-reads.js')
  const { connectionReads } = await import('../../daemon/chains/solana/reads.js')
  const now = await solanaNow(connectionReads(x.connection))
  if (now > unixSeconds) return
  await d.services.solana.testHooks!.advanceSlots(Math.ceil(((unixSeconds - now + 2) * 1000) / 400))
}

/** Builds, signs and submits a sol-origin order of `uiAmount` PUSD from a fresh funded wallet with no SOL. */
export async function openOrder(x: XchainClient, symbol: string, uiAmount: string, fund = '100') {
  const user = Keypair.generate()
  await x.fund(user.publicKey, symbol, fund)
  const recipient = x.newRecipient()
  const r = await x.build(user, { inSym: symbol, outSym: symbol, uiAmount, recipientEvm: recipient })
  if (r.status !== 200) throw new Error(`build answered ${r.status}: ${JSON.stringify(r.body)}`)
  await x.submit(user, r.body)
  return { user, recipient, built: r.body }
}

/** One PUSD in base units on each chain (9 decimals on Solana, 18 on Base). */
export const PUSD_SOL = 1_000_000_000n
export const PUSD_BASE = 1_000_000_000_000_000_000n

/** A status answer after which the order does not move on: claimed, refunded or attention. */
export const isSettled = (b: { status: string }) => b.status !== 'pending' && b.status !== 'unknown'

/** Undoes what fault tests switch: every attestor honest, the solver resumed. */
export async function resetXchainFaults(d: TestDaemon, x: XchainClient): Promise<void> {
  for (const a of d.services.xchain.attestors) a.mode = 'honest'
  await x.operator('/api/solver/resume')
}

/**
 * The worker's own attestation step for a delivered order, done by a test while claims are held
 * (same calls, same rows): the quorum's signatures saved and the order moved to `attested`.
 */
export async function attestDelivered(
  d: TestDaemon,
  rail: 'sol-origin' | 'evm-origin',
  orderId: string,
): Promise<{ signatures: number; moved: boolean }> {
  const record = (await d.services.xchain.orders.get(orderId))!
  const r = d.services.xchain.rails[rail]!
  const statement = r.statement(record, (await r.readFill(record)) as never)
  const q = await collectQuorum(d.services.xchain.attestors, { rail, orderId: record.orderId, statement })
  await attestationStore(d.services.store).save(
    record.orderId,
    q.signatures.map((s) => ({ ...s, statement })),
  )
  return {
    signatures: q.signatures.length,
    moved: await d.services.xchain.orders.move(record.orderId, 'delivered', 'attested'),
  }
}
