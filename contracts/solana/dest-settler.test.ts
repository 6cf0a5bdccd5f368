import { Keypair } from '@solana/web3.js'
import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { evmParty } from '../xchain/statement.js'
import { decodeFillRecord, DEST_ERRORS as E, type Fill, fillInstruction, fillRecordPda } from './client.js'
import { customError, type Sent, SettlementSvm } from './testing/svm.js'

const AMOUNT = 1_500_000n

function setup() {
  const s = new SettlementSvm()
  const admin = Keypair.generate()
  const solver = Keypair.generate()
  const recipient = Keypair.generate()
  for (const k of [admin, solver]) s.airdrop(k.publicKey)
  const mint = s.createMint(admin)
  const solverToken = s.tokenAccount(admin, mint, solver.publicKey, 10_000_000n)
  const recipientToken = s.tokenAccount(admin, mint, recipient.publicKey)
  return { s, admin, solver, recipient, mint, solverToken, recipientToken }
}
type Fixture = ReturnType<typeof setup>

const orderId = () => `0x${Buffer.from(Keypair.generate().publicKey.toBytes()).toString('hex')}` as const
const claimant = evmParty(getAddress('0x00000000000000000000000000000000000000c1'))

function fill(f: Fixture, over: Partial<Fill> = {}, recipientToken = f.recipientToken): { fill: Fill; sent: Sent } {
  const x: Fill = {
    orderId: orderId(),
    recipient: f.recipient.publicKey,
    amount: AMOUNT,
    claimant,
    fillDeadline: f.s.now() + 600n,
    ...over,
  }
  const sent = f.s.send(
    [
      fillInstruction({
        program: f.s.dest,
        fill: x,
        solver: f.solver.publicKey,
        solverToken: f.solverToken,
        recipientToken,
        mint: f.mint,
      }),
    ],
    [f.solver],
  )
  return { fill: x, sent }
}

const expectCustom = (sent: Sent, code: number) =>
  expect(customError(sent), `${JSON.stringify(sent.err)}\n${sent.logs.join('\n')}`).toBe(code)

describe('dest_settler (our .so on litesvm)', () => {
  it('delivers solver -> recipient and records the fill', () => {
    const f = setup()
    const { fill: x, sent } = fill(f)
    expect(sent.err, sent.logs.join('\n')).toBeNull()
    expect(f.s.tokenBalance(f.recipientToken)).toBe(AMOUNT)
    expect(f.s.tokenBalance(f.solverToken)).toBe(10_000_000n - AMOUNT)
    const record = decodeFillRecord(f.s.data(fillRecordPda(f.s.dest, x.orderId))!)
    expect(record).toMatchObject({ orderId: x.orderId, amount: AMOUNT, claimant, filledAt: f.s.now() })
    expect(record.recipient.equals(f.recipient.publicKey)).toBe(true)
    expect(record.mint.equals(f.mint)).toBe(true)
    expect(record.solver.equals(f.solver.publicKey)).toBe(true)
  })

  it('fills even when someone sent lamports to the fill record address first', () => {
    const f = setup()
    const id = orderId()
    f.s.airdrop(fillRecordPda(f.s.dest, id), 1n)
    const { sent } = fill(f, { orderId: id })
    expect(sent.err, sent.logs.join('\n')).toBeNull()
    expect(decodeFillRecord(f.s.data(fillRecordPda(f.s.dest, id))!).amount).toBe(AMOUNT)
    expectCustom(fill(f, { orderId: id }).sent, E.ALREADY_FILLED)
  })

  it('fails a second fill of the same order', () => {
    const f = setup()
    const first = fill(f)
    expect(first.sent.err).toBeNull()
    expectCustom(fill(f, { orderId: first.fill.orderId }).sent, E.ALREADY_FILLED)
    expect(f.s.tokenBalance(f.recipientToken)).toBe(AMOUNT)
  })

  it('refuses a fill after the fill deadline', () => {
    const f = setup()
    expectCustom(fill(f, { fillDeadline: f.s.now() - 1n }).sent, E.FILL_DEADLINE_PASSED)
    expect(f.s.tokenBalance(f.recipientToken)).toBe(0n)
  })

  it('refuses delivery to a token account that is not the recipient’s', () => {
    const f = setup()
    const other = f.s.tokenAccount(f.admin, f.mint, Keypair.generate().publicKey)
    expectCustom(fill(f, {}, other).sent, E.WRONG_RECIPIENT_ACCOUNT)
    const otherMint = f.s.createMint(f.admin)
    const wrongMint = f.s.tokenAccount(f.admin, otherMint, f.recipient.publicKey)
    expectCustom(fill(f, {}, wrongMint).sent, E.WRONG_RECIPIENT_ACCOUNT)
  })

  it('refuses a fill record at another address than the order id’s PDA', () => {
    const f = setup()
    const x: Fill = {
      orderId: orderId(),
      recipient: f.recipient.publicKey,
      amount: AMOUNT,
      claimant,
      fillDeadline: f.s.now() + 600n,
    }
    const ix = fillInstruction({
      program: f.s.dest,
      fill: x,
      solver: f.solver.publicKey,
      solverToken: f.solverToken,
      recipientToken: f.recipientToken,
      mint: f.mint,
    })
    ix.keys[4] = { pubkey: fillRecordPda(f.s.dest, orderId()), isSigner: false, isWritable: true }
    expectCustom(f.s.send([ix], [f.solver]), E.WRONG_ACCOUNT)
  })
})
