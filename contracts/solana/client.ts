/**
 * Client side of origin_settler and dest_settler: PDAs, instruction encodings and account decoders,
 * one place for the layouts ../solana/README.md documents. Used by the programs' tests, the bench,
 * the deployment and (later) the cross-chain service and attestors.
 */

import { TOKEN_PROGRAM_ID } from '@solana/spl-token'
import {
  Ed25519Program,
  PublicKey,
  SYSVAR_INSTRUCTIONS_PUBKEY,
  SystemProgram,
  TransactionInstruction,
} from '@solana/web3.js'
import { hexToBytes } from 'viem'
import { type SolOrder, solOrderBytes } from '../xchain/statement.js'

export const ORIGIN_IX = { initConfig: 0, open: 1, claim: 2, refund: 3 } as const
export const DEST_IX = { fill: 1 } as const

/** origin_settler's custom error codes (InstructionError Custom n). */
export const ORIGIN_ERRORS = {
  BAD_INSTRUCTION: 1,
  WRONG_ACCOUNT: 2,
  MISSING_SIGNATURE: 3,
  ALREADY_INITIALIZED: 4,
  BAD_CONFIG: 5,
  ORDER_MISMATCH: 6,
  BAD_DEADLINES: 7,
  ORDER_NOT_OPEN: 8,
  ORDER_EXPIRED: 9,
  ORDER_NOT_EXPIRED: 10,
  QUORUM_NOT_MET: 11,
  WRONG_REFUND_ACCOUNT: 12,
  WRONG_SOLVER_ACCOUNT: 13,
  BAD_INSTRUCTIONS_SYSVAR: 14,
  ALREADY_OPENED: 15,
  NOT_ADMIN: 16,
} as const
/** dest_settler's custom error codes. */
export const DEST_ERRORS = {
  BAD_INSTRUCTION: 1,
  WRONG_ACCOUNT: 2,
  MISSING_SIGNATURE: 3,
  ALREADY_FILLED: 20,
  FILL_DEADLINE_PASSED: 21,
  WRONG_RECIPIENT_ACCOUNT: 22,
} as const

export const ORDER_STATUS = { open: 1, claimed: 2, refunded: 3 } as const
export const CONFIG_LEN = 136
export const ORDER_LEN = 352
export const FILL_RECORD_LEN = 184

const bytes = (s: string) => new TextEncoder().encode(s)
const id32 = (orderId: `0x${string}` | Uint8Array) => (typeof orderId === 'string' ? hexToBytes(orderId) : orderId)

export const BPF_LOADER_UPGRADEABLE = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111')
/** The upgradeable loader's ProgramData account of `program` (holds its upgrade authority). */
export const programDataAddress = (program: PublicKey) =>
  PublicKey.findProgramAddressSync([program.toBuffer()], BPF_LOADER_UPGRADEABLE)[0]
/** Offsets in a ProgramData account: u32 tag 3, u64 slot, Option<Pubkey> upgrade authority. */
export const PROGRAM_DATA_AUTHORITY_OPTION = 12

// Deriving a PDA tries bumps until one is off the curve, a curve check (about a millisecond in
// JavaScript) each; the solver worker and the attestors derive the same few per order at every
// step. They never change, so they are kept.
const PDA_CACHE_SIZE = 20_000
const pdas = new Map<string, PublicKey>()
function orderScopedPda(seed: string, program: PublicKey, orderId: `0x${string}` | Uint8Array): PublicKey {
  const id = id32(orderId)
  const key = `${seed}:${program.toBase58()}:${Buffer.from(id).toString('hex')}`
  let pda = pdas.get(key)
  if (!pda) {
    pda = PublicKey.findProgramAddressSync([bytes(seed), id], program)[0]
    if (pdas.size >= PDA_CACHE_SIZE) pdas.delete(pdas.keys().next().value!)
    pdas.set(key, pda)
  }
  return pda
}

const configs = new Map<string, PublicKey>()
/** One per program, derived once (every claim and refund names it). */
export function configPda(program: PublicKey): PublicKey {
  let pda = configs.get(program.toBase58())
  if (!pda) configs.set(program.toBase58(), (pda = PublicKey.findProgramAddressSync([bytes('config')], program)[0]))
  return pda
}
export const orderPda = (program: PublicKey, orderId: `0x${string}` | Uint8Array) =>
  orderScopedPda('order', program, orderId)
export const vaultPda = (program: PublicKey, orderId: `0x${string}` | Uint8Array) =>
  orderScopedPda('vault', program, orderId)
export const fillRecordPda = (program: PublicKey, orderId: `0x${string}` | Uint8Array) =>
  orderScopedPda('fill', program, orderId)

const w = (pubkey: PublicKey, isSigner = false) => ({ pubkey, isSigner, isWritable: true })
const r = (pubkey: PublicKey, isSigner = false) => ({ pubkey, isSigner, isWritable: false })

export function initConfigInstruction(p: {
  program: PublicKey
  admin: PublicKey
  attestors: PublicKey[]
  threshold?: number
}): TransactionInstruction {
  if (p.attestors.length !== 3) throw new RangeError('origin_settler takes exactly 3 attestors')
  const data = Buffer.concat([
    Buffer.from([ORIGIN_IX.initConfig, p.threshold ?? 2]),
    ...p.attestors.map((a) => a.toBuffer()),
  ])
  return new TransactionInstruction({
    programId: p.program,
    data,
    keys: [w(p.admin, true), w(configPda(p.program)), r(SystemProgram.programId), r(programDataAddress(p.program))],
  })
}

/** `payer` (the solver, usually) pays fees and rent; `order.user` signs and owns `userToken`. */
export function openInstruction(p: {
  order: SolOrder
  orderId: `0x${string}`
  payer: PublicKey
  userToken: PublicKey
}): TransactionInstruction {
  const program = new PublicKey(p.order.program)
  return new TransactionInstruction({
    programId: program,
    data: Buffer.concat([Buffer.from([ORIGIN_IX.open]), solOrderBytes(p.order)]),
    keys: [
      w(p.payer, true),
      r(new PublicKey(p.order.user), true),
      w(p.userToken),
      r(new PublicKey(p.order.inputMint)),
      w(orderPda(program, p.orderId)),
      w(vaultPda(program, p.orderId)),
      r(SystemProgram.programId),
      r(TOKEN_PROGRAM_ID),
    ],
  })
}

export function claimInstruction(p: {
  program: PublicKey
  orderId: `0x${string}`
  mint: PublicKey
  solver: PublicKey
  solverToken: PublicKey
  rentPayer: PublicKey
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: p.program,
    data: Buffer.concat([Buffer.from([ORIGIN_IX.claim]), p.solver.toBuffer()]),
    keys: [
      w(orderPda(p.program, p.orderId)),
      w(vaultPda(p.program, p.orderId)),
      r(p.mint),
      w(p.solverToken),
      w(p.rentPayer),
      r(configPda(p.program)),
      r(SYSVAR_INSTRUCTIONS_PUBKEY),
      r(TOKEN_PROGRAM_ID),
    ],
  })
}

export function refundInstruction(p: {
  program: PublicKey
  orderId: `0x${string}`
  mint: PublicKey
  userToken: PublicKey
  rentPayer: PublicKey
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: p.program,
    data: Buffer.from([ORIGIN_IX.refund]),
    keys: [
      w(orderPda(p.program, p.orderId)),
      w(vaultPda(p.program, p.orderId)),
      r(p.mint),
      w(p.userToken),
      w(p.rentPayer),
      r(TOKEN_PROGRAM_ID),
    ],
  })
}

export type Fill = {
  orderId: `0x${string}`
  /** The recipient (owner of `recipientToken`). */
  recipient: PublicKey
  amount: bigint
  /** bytes32: the solver's EVM address (left-padded) that may claim on the origin chain. */
  claimant: `0x${string}`
  fillDeadline: bigint
}

export function fillInstruction(p: {
  program: PublicKey
  fill: Fill
  solver: PublicKey
  solverToken: PublicKey
  recipientToken: PublicKey
  mint: PublicKey
}): TransactionInstruction {
  const data = Buffer.alloc(1 + 32 + 32 + 8 + 32 + 8)
  data[0] = DEST_IX.fill
  Buffer.from(hexToBytes(p.fill.orderId)).copy(data, 1)
  p.fill.recipient.toBuffer().copy(data, 33)
  data.writeBigUInt64LE(p.fill.amount, 65)
  Buffer.from(hexToBytes(p.fill.claimant)).copy(data, 73)
  data.writeBigInt64LE(p.fill.fillDeadline, 105)
  return new TransactionInstruction({
    programId: p.program,
    data,
    keys: [
      w(p.solver, true),
      w(p.solverToken),
      w(p.recipientToken),
      r(p.mint),
      w(fillRecordPda(p.program, p.fill.orderId)),
      r(SystemProgram.programId),
      r(TOKEN_PROGRAM_ID),
    ],
  })
}

/**
 * One Ed25519-program instruction carrying several (public key, signature) pairs over one message,
 * everything inside the instruction itself (offsets' instruction indexes = u16::MAX).
 */
export function ed25519Instruction(
  message: Uint8Array,
  signed: { publicKey: Uint8Array; signature: Uint8Array }[],
): TransactionInstruction {
  if (signed.length === 1) {
    return Ed25519Program.createInstructionWithPublicKey({
      publicKey: signed[0]!.publicKey,
      message,
      signature: signed[0]!.signature,
    })
  }
  const header = 2 + 14 * signed.length
  const messageAt = header + signed.length * 96
  const data = Buffer.alloc(messageAt + message.length)
  data[0] = signed.length
  signed.forEach((s, i) => {
    const keyAt = header + i * 96
    const sigAt = keyAt + 32
    const o = 2 + 14 * i
    data.writeUInt16LE(sigAt, o)
    data.writeUInt16LE(0xffff, o + 2)
    data.writeUInt16LE(keyAt, o + 4)
    data.writeUInt16LE(0xffff, o + 6)
    data.writeUInt16LE(messageAt, o + 8)
    data.writeUInt16LE(message.length, o + 10)
    data.writeUInt16LE(0xffff, o + 12)
    Buffer.from(s.publicKey).copy(data, keyAt)
    Buffer.from(s.signature).copy(data, sigAt)
  })
  Buffer.from(message).copy(data, messageAt)
  return new TransactionInstruction({ programId: Ed25519Program.programId, keys: [], data })
}

export type OrderAccount = {
  status: number
  orderId: `0x${string}`
  user: PublicKey
  userToken: PublicKey
  mint: PublicKey
  vault: PublicKey
  rentPayer: PublicKey
  amount: bigint
  fillDeadline: bigint
  expires: bigint
}

export function decodeOrder(data: Uint8Array): OrderAccount {
  if (data.length !== ORDER_LEN || data[0] !== 2) throw new Error('not an origin_settler order account')
  const b = Buffer.from(data)
  const key = (at: number) => new PublicKey(b.subarray(at, at + 32))
  return {
    status: b[1]!,
    orderId: `0x${b.subarray(8, 40).toString('hex')}`,
    user: key(40),
    userToken: key(72),
    mint: key(104),
    vault: key(136),
    rentPayer: key(168),
    amount: b.readBigUInt64LE(200),
    fillDeadline: b.readBigInt64LE(208),
    expires: b.readBigInt64LE(216),
  }
}

export type ConfigAccount = { threshold: number; admin: PublicKey; attestors: PublicKey[] }

export function decodeConfig(data: Uint8Array): ConfigAccount {
  if (data.length !== CONFIG_LEN || data[0] !== 1) throw new Error('not an origin_settler config account')
  const b = Buffer.from(data)
  return {
    threshold: b[1]!,
    admin: new PublicKey(b.subarray(8, 40)),
    attestors: [0, 1, 2].map((i) => new PublicKey(b.subarray(40 + 32 * i, 72 + 32 * i))),
  }
}

export type FillRecordAccount = {
  orderId: `0x${string}`
  recipient: PublicKey
  mint: PublicKey
  amount: bigint
  claimant: `0x${string}`
  filledAt: bigint
  solver: PublicKey
}

export function decodeFillRecord(data: Uint8Array): FillRecordAccount {
  if (data.length !== FILL_RECORD_LEN || data[0] !== 3) throw new Error('not a dest_settler fill record')
  const b = Buffer.from(data)
  return {
    orderId: `0x${b.subarray(8, 40).toString('hex')}`,
    recipient: new PublicKey(b.subarray(40, 72)),
    mint: new PublicKey(b.subarray(72, 104)),
    amount: b.readBigUInt64LE(104),
    claimant: `0x${b.subarray(112, 144).toString('hex')}`,
    filledAt: b.readBigInt64LE(144),
    solver: new PublicKey(b.subarray(152, 184)),
  }
}
