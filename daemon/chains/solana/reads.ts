import {
  type AccountInfo,
  type BlockhashWithExpiryBlockHeight,
  type Commitment,
  type Connection,
  type PublicKey,
  type SignatureStatus,
  type TransactionError,
  VersionedTransaction,
} from '@solana/web3.js'

export type SimulationOutcome = { err: TransactionError | string | null; logs: string[] | null }

/**
 * Port: the chain reads a swap build, its settle passes and the cross-chain worker make, several per request or step.
 * Any cluster answers them through
 * its Connection (`connectionReads`); the embedded cluster answers them from its own state, in
 * process (embedded/solana-reads.ts): for it the JSON-RPC round trip (web3.js encoding the
 * request, our dispatcher, JSON both ways, web3.js validating the answer with superstruct) cost
 * several times what the reads themselves do.
 */
export type SolanaReads = {
  /** Accounts in the order asked, null where there is none; every one from the same state. */
  multipleAccounts(keys: PublicKey[], commitment: Commitment): Promise<(AccountInfo<Buffer> | null)[]>
  latestBlockhash(commitment: Commitment): Promise<BlockhashWithExpiryBlockHeight>
  blockHeight(commitment: Commitment): Promise<number>
  /** At most 256 signatures per call, as nodes take. */
  signatureStatuses(
    signatures: string[],
    opts: { searchTransactionHistory: boolean },
  ): Promise<(SignatureStatus | null)[]>
  /** Runs the wire transaction `wire` without landing it; signatures are checked only with `sigVerify`. */
  simulate(wire: Uint8Array, opts: { sigVerify: boolean; commitment: Commitment }): Promise<SimulationOutcome>
}

export function connectionReads(connection: Connection): SolanaReads {
  return {
    multipleAccounts: (keys, commitment) => connection.getMultipleAccountsInfo(keys, commitment),
    latestBlockhash: (commitment) => connection.getLatestBlockhash(commitment),
    blockHeight: (commitment) => connection.getBlockHeight(commitment),
    signatureStatuses: async (signatures, opts) => (await connection.getSignatureStatuses(signatures, opts)).value,
    simulate: async (wire, opts) => {
      const { value } = await connection.simulateTransaction(VersionedTransaction.deserialize(wire), {
        sigVerify: opts.sigVerify,
        replaceRecentBlockhash: false,
        commitment: opts.commitment,
      })
      return { err: value.err, logs: value.logs }
    },
  }
}
