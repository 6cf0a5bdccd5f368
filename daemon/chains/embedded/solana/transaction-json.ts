import { VersionedTransaction } from '@solana/web3.js'
import bs58 from 'bs58'
import type { TxRecord } from './tx-store.js'

export type TransactionEncoding = 'json' | 'base64' | 'base58'

function transactionJson(tx: VersionedTransaction) {
  const m = tx.message
  return {
    signatures: tx.signatures.map((s) => bs58.encode(s)),
    message: {
      accountKeys: m.staticAccountKeys.map((k) => k.toBase58()),
      header: m.header,
      recentBlockhash: m.recentBlockhash,
      instructions: m.compiledInstructions.map((ix) => ({
        programIdIndex: ix.programIdIndex, accounts: ix.accountKeyIndexes, data: bs58.encode(ix.data), stackHeight: null,
      })),
      ...(tx.version === 0 ? {
        addressTableLookups: m.addressTableLookups.map((l) => ({
          accountKey: l.accountKey.toBase58(), writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes,
        })),
      } : {}),
    },
  }
}

/**
 * A recorded transaction as `getTransaction` returns it. `withVersion`: the client sent
 * `maxSupportedTransactionVersion`, which is what makes a node add the `version` field.
 */
export function renderTransaction(record: TxRecord, encoding: TransactionEncoding, withVersion: boolean) {
  const { meta } = record
  const transaction = encoding === 'json' ? transactionJson(VersionedTransaction.deserialize(record.raw))
    : encoding === 'base64' ? [Buffer.from(record.raw).toString('base64'), 'base64']
      : [bs58.encode(record.raw), 'base58']
  return {
    slot: record.slot,
    blockTime: record.blockTime,
    ...(withVersion ? { version: meta.version } : {}),
    transaction,
    meta: {
      err: record.err,
      status: record.err === null ? { Ok: null } : { Err: record.err },
      fee: BigInt(meta.fee),
      preBalances: meta.preBalances.map(BigInt),
      postBalances: meta.postBalances.map(BigInt),
      innerInstructions: meta.innerInstructions,
      logMessages: meta.logs,
      preTokenBalances: meta.preTokenBalances,
      postTokenBalances: meta.postTokenBalances,
      rewards: [],
      loadedAddresses: meta.loadedAddresses,
      computeUnitsConsumed: meta.computeUnitsConsumed,
      ...(meta.returnData ? { returnData: meta.returnData } : {}),
    },
  }
}
