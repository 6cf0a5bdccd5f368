import type { Connection, Keypair } from '@solana/web3.js'
import { BaseError } from '../../errors/base.js'
import { callJson } from '../http.js'
import { buildSignSubmitEvmOrigin, type EvmOriginOrderRequest, type EvmOriginSigner } from './evm-origin-client.js'
import { xchainPaths } from './paths.js'
import { pollStatus, type WaitOptions } from './poll.js'
import type {
  EvmOriginBuildRequest,
  EvmOriginBuilt,
  SolOriginBuildRequest,
  SolOriginBuilt,
  XchainRail,
  XchainStatusResponse,
} from './wire.js'

export type XchainClientParameters = {
  /** The swap API, e.g. http://127.0.0.1:8420 */
  apiUrl: string
  /** Partner key, sent as x-api-key (the build and status routes need one). */
  apiKey?: string
}

export { FINAL_STATUSES, isFinal, OrderWaitTimeoutError, type WaitOptions } from './poll.js'

/** The user's lock transaction landed but failed on chain: nothing was locked. */
export class LockFailedError extends BaseError {
  override name = 'LockFailedError'
  constructor(
    readonly orderId: string,
    readonly ref: string,
    detail: string,
  ) {
    super(
      'XCHAIN_LOCK_FAILED',
      `the lock of order ${orderId} (${ref}) failed on chain: ${detail}; nothing was locked, build a new order`,
    )
  }
}

/**
 * A partner backend's client for cross-chain orders (docs/cross-chain.md "Cross-chain orders"): build, status and
 * polling for both
 * rails, and `openSolOrigin`, which builds, signs and submits a Solana-origin order in one call.
 * `openEvmOrigin` does the same for a Base-origin order, gaslessly (./evm-origin-client.ts).
 *
 * @example
 * const x = createXchainClient({ apiUrl, apiKey })
 * const { built } = await x.openSolOrigin({ signer, connection, inSym: 'USDC', outSym: 'USDC', uiAmount: '25',
 * recipientEvm })
 * const final = await x.waitForStatus(built.orderId)   // claimed, refunded or attention
 */
export function createXchainClient(p: XchainClientParameters) {
  const headers: Record<string, string> = p.apiKey ? { 'x-api-key': p.apiKey } : {}

  const client = {
    apiUrl: p.apiUrl,
    headers,
    /** POST /api/xchain/sol-origin/open/build: the lock, co-signed by the solver as fee payer. */
    buildSolOrigin: (req: SolOriginBuildRequest) =>
      callJson<SolOriginBuilt>(p.apiUrl, xchainPaths.solBuild, { headers, body: req }),
    /** POST /api/xchain/evm-origin/open/build: the order, what to sign for the gasless open, and the plain calls. */
    buildEvmOrigin: (req: EvmOriginBuildRequest) =>
      callJson<EvmOriginBuilt>(p.apiUrl, xchainPaths.evmBuild, { headers, body: req }),
    /** GET /api/xchain/status/:orderId (rail defaults to sol-origin, as the route does). */
    status: (orderId: string, rail?: XchainRail) =>
      callJson<XchainStatusResponse>(p.apiUrl, xchainPaths.status.replace(':orderId', orderId), {
        headers,
        query: { rail },
      }),

    /** Polls status until a final status (or `until`), then returns that answer. */
    waitForStatus: (orderId: string, o: WaitOptions = {}) => pollStatus(() => client.status(orderId, o.rail), o),

    /**
     * Builds a Solana-origin order, signs the lock as `signer` (the solver already signed as fee
     * payer, so the wallet needs no SOL), submits it to `connection` and waits for confirmation.
     * Afterwards only poll: `waitForStatus(built.orderId)`.
     */
    async openSolOrigin(x: Omit<SolOriginBuildRequest, 'user'> & { signer: Keypair; connection: Connection }) {
      const { signer, connection, ...req } = x
      const built = await client.buildSolOrigin({ ...req, user: signer.publicKey.toBase58() })
      const { Transaction } = await import('@solana/web3.js')
      const tx = Transaction.from(Buffer.from(built.txB64, 'base64'))
      tx.partialSign(signer)
      const signature = await connection.sendRawTransaction(tx.serialize())
      const { value } = await connection.confirmTransaction({
        signature,
        blockhash: built.blockhash,
        lastValidBlockHeight: built.lastValidBlockHeight,
      })
      if (value.err) throw new LockFailedError(built.orderId, signature, JSON.stringify(value.err))
      return { built, signature }
    },

    /**
     * Builds a Base-origin order for `signer`, signs the order and the input token's permit (typed
     * data only: the wallet needs no ETH) and submits both; the solver relays the open. Resolves
     * once the lock is confirmed on Base (`submitted.opened`). Then poll with `rail: 'evm-origin'`.
     */
    openEvmOrigin: (signer: EvmOriginSigner, req: EvmOriginOrderRequest) =>
      buildSignSubmitEvmOrigin({ apiUrl: p.apiUrl, apiKey: p.apiKey }, signer, req),
  }
  return client
}

export type XchainClient = ReturnType<typeof createXchainClient>
