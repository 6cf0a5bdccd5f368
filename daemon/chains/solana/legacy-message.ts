import type { PublicKey, TransactionInstruction } from '@solana/web3.js'
import bs58 from 'bs58'
import { BaseError } from '../../../src/errors/base.js'
import { keyBytes } from './key-memo.js'

// A blockhash serves every build of its slot (400 ms): decoded once.
let lastBlockhash: { text: string; bytes: Uint8Array } | undefined
function blockhashBytes(blockhash: string): Uint8Array {
  if (lastBlockhash?.text !== blockhash) lastBlockhash = { text: blockhash, bytes: bs58.decode(blockhash) }
  return lastBlockhash.bytes
}

type KeyMeta = { bytes: Uint8Array; signer: boolean; writable: boolean }

/**
 * The wire bytes of the legacy message web3.js compiles from `instructions` paid by `payer`
 * (`new TransactionMessage(...).compileToLegacyMessage().serialize()`), byte for byte: the same
 * key order (payer, then writable signers, readonly signers, writable and readonly non-signers,
 * each in order of first appearance), header and encoding. web3.js keys its maps by base58 and
 * serializes through buffer-layout; this keys them by raw bytes and writes once, several times
 * cheaper on the path of every swap build.
 */
export function compileLegacyMessage(
  payer: PublicKey,
  instructions: TransactionInstruction[],
  recentBlockhash: string,
): Uint8Array {
  const metas = new Map<string, KeyMeta>()
  const idOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
  const meta = (key: PublicKey): KeyMeta => {
    const bytes = keyBytes(key)
    const id = idOf(bytes)
    let m = metas.get(id)
    if (!m) metas.set(id, (m = { bytes, signer: false, writable: false }))
    return m
  }
  const payerMeta = meta(payer)
  payerMeta.signer = payerMeta.writable = true
  for (const ix of instructions) {
    meta(ix.programId)
    for (const k of ix.keys) {
      const m = meta(k.pubkey)
      m.signer ||= k.isSigner
      m.writable ||= k.isWritable
    }
  }
  const all = [...metas.values()]
  const group = (signer: boolean, writable: boolean) =>
    all.filter((m) => m.signer === signer && m.writable === writable)
  const [writableSigners, readonlySigners, writableUnsigned, readonlyUnsigned] = [
    group(true, true),
    group(true, false),
    group(false, true),
    group(false, false),
  ]
  const keys = [...writableSigners, ...readonlySigners, ...writableUnsigned, ...readonlyUnsigned]
  if (keys.length > 256)
    throw new BaseError('BAD_REQUEST', `a legacy message holds at most 256 account keys, not ${keys.length}`)
  const index = new Map(keys.map((m, i) => [idOf(m.bytes), i]))
  const indexOf = (key: PublicKey) => index.get(idOf(keyBytes(key)))!

  const out: number[] = [
    writableSigners.length + readonlySigners.length,
    readonlySigners.length,
    readonlyUnsigned.length,
  ]
  shortVec(out, keys.length)
  for (const m of keys) for (const b of m.bytes) out.push(b)
  for (const b of blockhashBytes(recentBlockhash)) out.push(b)
  shortVec(out, instructions.length)
  for (const ix of instructions) {
    out.push(indexOf(ix.programId))
    shortVec(out, ix.keys.length)
    for (const k of ix.keys) out.push(indexOf(k.pubkey))
    shortVec(out, ix.data.length)
    for (const b of ix.data) out.push(b)
  }
  return Uint8Array.from(out)
}

/**
 * A legacy transaction's wire bytes: its signatures (null for one still missing, sent as zeroes,
 * as web3.js does) before the message they sign.
 */
export function legacyWire(signatures: (Uint8Array | null)[], message: Uint8Array): Buffer {
  const prefix: number[] = []
  shortVec(prefix, signatures.length)
  const wire = Buffer.alloc(prefix.length + 64 * signatures.length + message.length)
  wire.set(prefix, 0)
  signatures.forEach((s, i) => s && wire.set(s, prefix.length + 64 * i))
  wire.set(message, prefix.length + 64 * signatures.length)
  return wire
}

/** Solana's compact-u16 length prefix ("shortvec"): 7 bits a byte, low bits first. */
function shortVec(out: number[], n: number): void {
  let rest = n
  for (;;) {
    const low = rest & 0x7f
    rest >>= 7
    if (rest === 0) {
      out.push(low)
      return
    }
    out.push(low | 0x80)
  }
}
