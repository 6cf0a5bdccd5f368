import { VersionedTransaction } from '@solana/web3.js'
import bs58 from 'bs58'
import type { TxRecord } from './tx-store.js'

export type TransactionEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58'

function transactionJson(tx: VersionedTransaction) {
  const m = tx.message
  return {
    signatures: tx.signatures.map((s) => bs58.encode(s)),
    message: {
      accountKeys: m.staticAccountKeys.map((k) => k.toBase58()),
      header: m.header,
      recentBlockhash: m.recentBlockhash,
      instructions: m.compiledInstructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accounts: ix.accountKeyIndexes,
        data: bs58.encode(ix.data),
        stackHeight: null,
      })),
      ...(tx.version === 0
        ? {
            addressTableLookups: m.addressTableLookups.map((l) => ({
              accountKey: l.accountKey.toBase58(),
              writableIndexes: l.writableIndexes,
              readonlyIndexes: l.readonlyIndexes,
            })),
          }
        : {}),
    },
  }
}

/**
 * The jsonParsed form: keys annotated, instructions "partially decoded" (program and accounts
 * by address, data base58), which is what a node gives for programs it has no parser for.
 */
function parsedTransactionJson(tx: VersionedTransaction, record: TxRecord) {
  const m = tx.message
  const { writable, readonly } = record.meta.loadedAddresses
  const keys = [...m.staticAccountKeys.map((k) => k.toBase58()), ...writable, ...readonly]
  const decode = (ix: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number | null }) => ({
    programId: keys[ix.programIdIndex],
    accounts: ix.accounts.map((i) => keys[i]),
    data: ix.data,
    stackHeight: ix.stackHeight,
  })
  return {
    transaction: {
      signatures: tx.signatures.map((s) => bs58.encode(s)),
      message: {
        accountKeys: keys.map((pubkey, i) => ({
          pubkey,
          signer: i < m.header.numRequiredSignatures,
          writable:
            i < m.staticAccountKeys.length ? m.isAccountWritable(i) : i < m.staticAccountKeys.length + writable.length,
          source: i < m.staticAccountKeys.length ? 'transaction' : 'lookupTable',
        })),
        recentBlockhash: m.recentBlockhash,
        instructions: m.compiledInstructions.map((ix) =>
          decode({
            programIdIndex: ix.programIdIndex,
            accounts: ix.accountKeyIndexes,
            data: bs58.encode(ix.data),
            stackHeight: null,
          }),
        ),
        ...(tx.version === 0 ? { addressTableLookups: transactionJson(tx).message.addressTableLookups } : {}),
      },
    },
    innerInstructions: record.meta.innerInstructions.map(({ index, instructions }) => ({
      index,
      instructions: instructions.map(decode),
    })),
  }
}

/**
 * A recorded transaction as `getTransaction` returns it. `withVersion`: the client sent
 * `maxSupportedTransactionVersion`, which is what makes a node add the `version` field.
 */
export function renderTransaction(record: TxRecord, encoding: TransactionEncoding, withVersion: boolean) {
  const { meta } = record
  const tx = VersionedTransaction.deserialize(record.raw)
  const parsed = encoding === 'jsonParsed' ? parsedTransactionJson(tx, record) : undefined
  const transaction = parsed
    ? parsed.transaction
    : encoding === 'json'
      ? transactionJson(tx)
      : encoding === 'base64'
        ? [Buffer.from(record.raw).toString('base64'), 'base64']
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
      innerInstructions: parsed ? parsed.innerInstructions : meta.innerInstructions,
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
