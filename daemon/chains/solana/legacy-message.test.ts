import {
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import bs58 from 'bs58'
import { describe, expect, it } from 'vitest'
import { signMessage } from '../../../src/sdk/solana/sign.js'
import { keyBase58, keyBytes } from './key-memo.js'
import { compileLegacyMessage, legacyWire } from './legacy-message.js'

const payer = Keypair.generate()
const other = Keypair.generate()
const blockhash = bs58.encode(new Uint8Array(32).fill(7))
const key = () => Keypair.generate().publicKey
const web3Compiled = (p: PublicKey, ixs: TransactionInstruction[]) =>
  Buffer.from(
    new TransactionMessage({ payerKey: p, recentBlockhash: blockhash, instructions: ixs })
      .compileToLegacyMessage()
      .serialize(),
  )

describe('compileLegacyMessage', () => {
  it('writes the bytes web3.js compiles: key order, header, indexes, data', () => {
    const shared = key()
    const program = key()
    const ixs = [
      // A readonly signer, a key that turns writable on its second appearance, a program used twice, the payer inside.
      new TransactionInstruction({
        programId: program,
        keys: [
          { pubkey: shared, isSigner: false, isWritable: false },
          { pubkey: other.publicKey, isSigner: true, isWritable: false },
          { pubkey: payer.publicKey, isSigner: false, isWritable: false },
        ],
        data: Buffer.from([1, 2, 3]),
      }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: shared, lamports: 5 }),
      new TransactionInstruction({
        programId: program,
        keys: [{ pubkey: key(), isSigner: false, isWritable: true }],
        data: Buffer.alloc(200, 9),
      }),
      new TransactionInstruction({ programId: key(), keys: [], data: Buffer.alloc(0) }),
    ]
    expect(Buffer.from(compileLegacyMessage(payer.publicKey, ixs, blockhash))).toEqual(
      web3Compiled(payer.publicKey, ixs),
    )
  })

  it('gives a wire transaction web3.js reads back, signed by the payer, the other signature missing', () => {
    const ix = new TransactionInstruction({
      programId: key(),
      keys: [{ pubkey: other.publicKey, isSigner: true, isWritable: false }],
      data: Buffer.from('hi'),
    })
    const message = compileLegacyMessage(payer.publicKey, [ix], blockhash)
    const wire = legacyWire([signMessage(payer, message), null], message)
    const back = Transaction.from(wire)
    expect(back.signatures.map((s) => [s.publicKey.toBase58(), s.signature !== null])).toEqual([
      [payer.publicKey.toBase58(), true],
      [other.publicKey.toBase58(), false],
    ])
    expect(back.verifySignatures(false)).toBe(true)
    back.partialSign(other)
    expect(back.verifySignatures(true)).toBe(true)
    expect(Buffer.from(VersionedTransaction.deserialize(wire).message.serialize())).toEqual(Buffer.from(message))
  })
})

describe('key memo', () => {
  it('answers what the key itself does', () => {
    const k = new PublicKey(key().toBytes())
    expect(keyBase58(k)).toBe(k.toBase58())
    expect(keyBase58(k)).toBe(k.toBase58())
    expect(Buffer.from(keyBytes(k))).toEqual(Buffer.from(k.toBytes()))
  })
})
