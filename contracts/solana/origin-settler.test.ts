import { ComputeBudgetProgram, Keypair, type PublicKey } from '@solana/web3.js'
import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { chainRef, evmParty, type SolOrder, solOrderId } from '../xchain/statement.js'
import {
  claimInstruction,
  configPda,
  decodeConfig,
  decodeOrder,
  ORIGIN_ERRORS as E,
  ed25519Instruction,
  initConfigInstruction,
  ORDER_STATUS,
  openInstruction,
  orderPda,
  programDataAddress,
  refundInstruction,
  vaultPda,
} from './client.js'
import { attestations, deliveryFor, randomNonce } from './testing/attest.js'
import { customError, type Sent, SettlementSvm } from './testing/svm.js'

const BASE = chainRef('eip155:84530017')
const AMOUNT = 250_000n

function setup() {
  const s = new SettlementSvm()
  const admin = Keypair.generate()
  const solver = Keypair.generate()
  const user = Keypair.generate() // never funded with SOL: the solver pays
  const stranger = Keypair.generate()
  for (const k of [admin, solver, stranger]) s.airdrop(k.publicKey)
  const attestors = [Keypair.generate(), Keypair.generate(), Keypair.generate()]
  const mint = s.createMint(admin)
  const userToken = s.tokenAccount(admin, mint, user.publicKey, 1_000_000n)
  const solverToken = s.tokenAccount(admin, mint, solver.publicKey)
  s.setUpgradeAuthority(s.origin, admin.publicKey)
  const init = s.send(
    [
      initConfigInstruction({
        program: s.origin,
        admin: admin.publicKey,
        attestors: attestors.map((a) => a.publicKey),
      }),
    ],
    [admin],
  )
  expect(init.err, init.logs.join('\n')).toBeNull()
  return { s, admin, solver, user, stranger, attestors, mint, userToken, solverToken }
}
type Fixture = ReturnType<typeof setup>

function makeOrder(f: Fixture, over: Partial<SolOrder> = {}) {
  const now = f.s.now()
  const order: SolOrder = {
    program: f.s.origin.toBytes(),
    user: f.user.publicKey.toBytes(),
    inputMint: f.mint.toBytes(),
    inputAmount: AMOUNT,
    destChain: BASE,
    outputToken: evmParty(getAddress('0x00000000000000000000000000000000000000b5')),
    outputAmount: AMOUNT * 10n ** 12n,
    recipient: evmParty(getAddress('0x00000000000000000000000000000000000000a1')),
    fillDeadline: now + 600n,
    expires: now + 3600n,
    nonce: randomNonce(),
    ...over,
  }
  return { order, orderId: solOrderId(order) }
}

function open(f: Fixture, over: Partial<SolOrder> = {}) {
  const o = makeOrder(f, over)
  const sent = f.s.send(
    [openInstruction({ order: o.order, orderId: o.orderId, payer: f.solver.publicKey, userToken: f.userToken })],
    [f.solver, f.user],
  )
  return { ...o, sent }
}

function openOk(f: Fixture, over: Partial<SolOrder> = {}) {
  const o = open(f, over)
  expect(o.sent.err, o.sent.logs.join('\n')).toBeNull()
  return o
}

const claimIx = (f: Fixture, orderId: `0x${string}`, solver = f.solver.publicKey, solverToken = f.solverToken) =>
  claimInstruction({ program: f.s.origin, orderId, mint: f.mint, solver, solverToken, rentPayer: f.solver.publicKey })

function expectCustom(sent: Sent, code: number) {
  expect(customError(sent), `${JSON.stringify(sent.err)}\n${sent.logs.join('\n')}`).toBe(code)
}

describe('origin_settler (our .so on litesvm)', () => {
  it('init_config stores the 3 attestors and threshold 2, once', () => {
    const f = setup()
    const cfg = decodeConfig(f.s.data(configPda(f.s.origin))!)
    expect(cfg.threshold).toBe(2)
    expect(cfg.admin.equals(f.admin.publicKey)).toBe(true)
    expect(cfg.attestors.map((a) => a.toBase58())).toEqual(f.attestors.map((a) => a.publicKey.toBase58()))
    const fresh = [0, 1, 2].map(() => Keypair.generate().publicKey)
    expectCustom(
      f.s.send([initConfigInstruction({ program: f.s.origin, admin: f.admin.publicKey, attestors: fresh })], [f.admin]),
      E.ALREADY_INITIALIZED,
    )
    expectCustom(
      f.s.send(
        [initConfigInstruction({ program: f.s.origin, admin: f.stranger.publicKey, attestors: fresh })],
        [f.stranger],
      ),
      E.NOT_ADMIN,
    )
    expect(decodeConfig(f.s.data(configPda(f.s.origin))!).admin.equals(f.admin.publicKey)).toBe(true)
  })

  it('init_config is for the upgrade authority only', () => {
    const s = new SettlementSvm()
    const [admin, stranger] = [Keypair.generate(), Keypair.generate()]
    s.airdrop(admin.publicKey)
    s.airdrop(stranger.publicKey)
    const attestors = [0, 1, 2].map(() => Keypair.generate().publicKey)
    // Loaded without an upgrade authority: nobody can configure it.
    expectCustom(
      s.send([initConfigInstruction({ program: s.origin, admin: admin.publicKey, attestors })], [admin]),
      E.NOT_ADMIN,
    )
    s.setUpgradeAuthority(s.origin, admin.publicKey)
    expectCustom(
      s.send([initConfigInstruction({ program: s.origin, admin: stranger.publicKey, attestors })], [stranger]),
      E.NOT_ADMIN,
    )
    // Another program's ProgramData (with the stranger as its authority) does not stand in for ours.
    s.setUpgradeAuthority(s.dest, stranger.publicKey)
    const forged = initConfigInstruction({ program: s.origin, admin: stranger.publicKey, attestors })
    forged.keys[3] = { pubkey: programDataAddress(s.dest), isSigner: false, isWritable: false }
    expectCustom(s.send([forged], [stranger]), E.NOT_ADMIN)
    expect(
      s.send([initConfigInstruction({ program: s.origin, admin: admin.publicKey, attestors })], [admin]).err,
    ).toBeNull()
  })

  it('init_config refuses duplicate attestors and a threshold below 2', () => {
    const s = new SettlementSvm()
    const admin = Keypair.generate()
    s.airdrop(admin.publicKey)
    s.setUpgradeAuthority(s.origin, admin.publicKey)
    const a = Keypair.generate().publicKey
    expectCustom(
      s.send(
        [
          initConfigInstruction({
            program: s.origin,
            admin: admin.publicKey,
            attestors: [a, a, Keypair.generate().publicKey],
          }),
        ],
        [admin],
      ),
      E.BAD_CONFIG,
    )
    expectCustom(
      s.send(
        [
          initConfigInstruction({
            program: s.origin,
            admin: admin.publicKey,
            attestors: [0, 1, 2].map(() => Keypair.generate().publicKey),
            threshold: 1,
          }),
        ],
        [admin],
      ),
      E.BAD_CONFIG,
    )
  })

  it('opens for a user with 0 SOL, the solver paying fees and rent; the tokens sit in the order vault', () => {
    const f = setup()
    const solverLamports = f.s.lamports(f.solver.publicKey)
    const { orderId, order } = openOk(f)
    expect(f.s.lamports(f.user.publicKey)).toBe(0n)
    expect(f.s.lamports(f.solver.publicKey)).toBeLessThan(solverLamports)
    expect(f.s.tokenBalance(vaultPda(f.s.origin, orderId))).toBe(AMOUNT)
    expect(f.s.tokenBalance(f.userToken)).toBe(1_000_000n - AMOUNT)
    const acct = decodeOrder(f.s.data(orderPda(f.s.origin, orderId))!)
    expect(acct).toMatchObject({
      status: ORDER_STATUS.open,
      orderId,
      amount: AMOUNT,
      expires: order.expires,
      fillDeadline: order.fillDeadline,
    })
    expect(acct.userToken.equals(f.userToken)).toBe(true)
    expect(acct.rentPayer.equals(f.solver.publicKey)).toBe(true)
  })

  it('opens even when someone sent lamports to the order and vault addresses first', () => {
    const f = setup()
    const o = makeOrder(f)
    f.s.airdrop(orderPda(f.s.origin, o.orderId), 1n)
    f.s.airdrop(vaultPda(f.s.origin, o.orderId), 10_000_000n) // more than its rent: kept, nothing charged
    const sent = f.s.send(
      [openInstruction({ order: o.order, orderId: o.orderId, payer: f.solver.publicKey, userToken: f.userToken })],
      [f.solver, f.user],
    )
    expect(sent.err, sent.logs.join('\n')).toBeNull()
    expect(decodeOrder(f.s.data(orderPda(f.s.origin, o.orderId))!).status).toBe(ORDER_STATUS.open)
    expect(f.s.tokenBalance(vaultPda(f.s.origin, o.orderId))).toBe(AMOUNT)
  })

  it('opens an order id once', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const again = f.s.send(
      [openInstruction({ order, orderId, payer: f.solver.publicKey, userToken: f.userToken })],
      [f.solver, f.user],
    )
    expectCustom(again, E.ALREADY_OPENED)
    expect(f.s.tokenBalance(vaultPda(f.s.origin, orderId))).toBe(AMOUNT)
  })

  it('refuses fillDeadline > expires and a fillDeadline already past', () => {
    const f = setup()
    const now = f.s.now()
    expectCustom(open(f, { fillDeadline: now + 100n, expires: now + 99n }).sent, E.BAD_DEADLINES)
    expectCustom(open(f, { fillDeadline: now, expires: now + 99n }).sent, E.BAD_DEADLINES)
  })

  it('refuses an order naming another user, mint or program than the accounts given', () => {
    const f = setup()
    const forStranger = makeOrder(f, { user: f.stranger.publicKey.toBytes() })
    const ix = openInstruction({
      order: forStranger.order,
      orderId: forStranger.orderId,
      payer: f.solver.publicKey,
      userToken: f.userToken,
    })
    ix.keys[1] = { pubkey: f.user.publicKey, isSigner: true, isWritable: false }
    expectCustom(f.s.send([ix], [f.solver, f.user]), E.ORDER_MISMATCH)
    const otherMint = makeOrder(f, { inputMint: f.s.createMint(f.admin).toBytes() })
    const ix2 = openInstruction({
      order: otherMint.order,
      orderId: otherMint.orderId,
      payer: f.solver.publicKey,
      userToken: f.userToken,
    })
    ix2.keys[3] = { pubkey: f.mint, isSigner: false, isWritable: false }
    expectCustom(f.s.send([ix2], [f.solver, f.user]), E.ORDER_MISMATCH)
    const otherProgram = makeOrder(f, { program: Keypair.generate().publicKey.toBytes() })
    const ix3 = openInstruction({
      order: otherProgram.order,
      orderId: otherProgram.orderId,
      payer: f.solver.publicKey,
      userToken: f.userToken,
    })
    ix3.programId = f.s.origin
    expectCustom(f.s.send([ix3], [f.solver, f.user]), E.ORDER_MISMATCH)
  })

  it('computes the order id on chain: a client-chosen order PDA for other bytes is refused', () => {
    const f = setup()
    const real = makeOrder(f)
    const other = makeOrder(f)
    const sent = f.s.send(
      [
        openInstruction({
          order: real.order,
          orderId: other.orderId,
          payer: f.solver.publicKey,
          userToken: f.userToken,
        }),
      ],
      [f.solver, f.user],
    )
    expectCustom(sent, E.WRONG_ACCOUNT)
  })

  it('claims with two attestor signatures in two Ed25519 instructions, paying the solver', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const { message, signed } = attestations(deliveryFor(order, orderId, f.solver.publicKey), f.s.origin, [
      f.attestors[0]!,
      f.attestors[2]!,
    ])
    const sent = f.s.send(
      [ed25519Instruction(message, [signed[0]!]), ed25519Instruction(message, [signed[1]!]), claimIx(f, orderId)],
      [f.solver],
    )
    expect(sent.err, sent.logs.join('\n')).toBeNull()
    expect(f.s.tokenBalance(f.solverToken)).toBe(AMOUNT)
    expect(f.s.data(vaultPda(f.s.origin, orderId))).toBeNull()
    expect(decodeOrder(f.s.data(orderPda(f.s.origin, orderId))!).status).toBe(ORDER_STATUS.claimed)
    // Ended exactly once: a second claim and a refund after expiry both fail.
    expectCustom(f.s.send([ed25519Instruction(message, signed), claimIx(f, orderId)], [f.solver]), E.ORDER_NOT_OPEN)
    f.s.setNow(order.expires + 1n)
    expectCustom(
      f.s.send(
        [
          refundInstruction({
            program: f.s.origin,
            orderId,
            mint: f.mint,
            userToken: f.userToken,
            rentPayer: f.solver.publicKey,
          }),
        ],
        [f.stranger],
      ),
      E.ORDER_NOT_OPEN,
    )
    expect(f.s.tokenBalance(f.userToken)).toBe(1_000_000n - AMOUNT)
  })

  it('claims with one Ed25519 instruction carrying two signatures', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const { message, signed } = attestations(deliveryFor(order, orderId, f.solver.publicKey), f.s.origin, [
      f.attestors[1]!,
      f.attestors[2]!,
    ])
    const sent = f.s.send([ed25519Instruction(message, signed), claimIx(f, orderId)], [f.solver])
    expect(sent.err, sent.logs.join('\n')).toBeNull()
    expect(f.s.tokenBalance(f.solverToken)).toBe(AMOUNT)
  })

  it('finds the Ed25519 instructions wherever they sit in the transaction', () => {
    const f = setup()
    // Separate instructions (one signature each) before, around and after the claim, and one
    // two-signature instruction after it behind a compute-budget instruction.
    const layouts = (
      ed: ReturnType<typeof ed25519Instruction>[],
      both: ReturnType<typeof ed25519Instruction>,
      claim: ReturnType<typeof claimIx>,
    ) => [
      [claim, ed[0]!, ed[1]!],
      [ed[0]!, claim, ed[1]!],
      [ed[1]!, ed[0]!, claim],
      [ComputeBudgetProgram.setComputeUnitLimit({ units: 400_000 }), claim, both],
    ]
    for (let i = 0; i < 4; i++) {
      const { order, orderId } = openOk(f)
      const { message, signed } = attestations(deliveryFor(order, orderId, f.solver.publicKey), f.s.origin, [
        f.attestors[0]!,
        f.attestors[1]!,
      ])
      const ixs = layouts(
        signed.map((s) => ed25519Instruction(message, [s])),
        ed25519Instruction(message, signed),
        claimIx(f, orderId),
      )[i]!
      const sent = f.s.send(ixs, [f.solver])
      expect(sent.err, `layout ${i}: ${sent.logs.join('\n')}`).toBeNull()
    }
    expect(f.s.tokenBalance(f.solverToken)).toBe(4n * AMOUNT)
  })

  it('counts only signatures whose key and message sit inside their own Ed25519 instruction', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const { message, signed } = attestations(deliveryFor(order, orderId, f.solver.publicKey), f.s.origin, [
      f.attestors[0]!,
      f.attestors[1]!,
    ])
    const first = ed25519Instruction(message, [signed[0]!])
    // A valid second signature whose message is read by the Ed25519 program from instruction 0:
    // verified, but not counted (we only read bytes we can see the program verified in place).
    const second = ed25519Instruction(message, [signed[1]!])
    const messageInFirst = first.data.readUInt16LE(2 + 8)
    second.data.writeUInt16LE(messageInFirst, 2 + 8)
    second.data.writeUInt16LE(0, 2 + 12)
    const sent = f.s.send([first, second, claimIx(f, orderId)], [f.solver])
    expectCustom(sent, E.QUORUM_NOT_MET)
  })

  it('refuses one signature, the same attestor twice, and a non-attestor', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const d = deliveryFor(order, orderId, f.solver.publicKey)
    const one = attestations(d, f.s.origin, [f.attestors[0]!])
    expectCustom(
      f.s.send([ed25519Instruction(one.message, one.signed), claimIx(f, orderId)], [f.solver]),
      E.QUORUM_NOT_MET,
    )
    const same = attestations(d, f.s.origin, [f.attestors[0]!, f.attestors[0]!])
    expectCustom(
      f.s.send([ed25519Instruction(same.message, same.signed), claimIx(f, orderId)], [f.solver]),
      E.QUORUM_NOT_MET,
    )
    expectCustom(
      f.s.send(
        [
          ed25519Instruction(same.message, [same.signed[0]!]),
          ed25519Instruction(same.message, [same.signed[1]!]),
          claimIx(f, orderId),
        ],
        [f.solver],
      ),
      E.QUORUM_NOT_MET,
    )
    const outsider = attestations(d, f.s.origin, [f.attestors[0]!, Keypair.generate()])
    expectCustom(
      f.s.send([ed25519Instruction(outsider.message, outsider.signed), claimIx(f, orderId)], [f.solver]),
      E.QUORUM_NOT_MET,
    )
    expect(f.s.tokenBalance(vaultPda(f.s.origin, orderId))).toBe(AMOUNT)
  })

  it('refuses a forged signature (the Ed25519 program fails the transaction)', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const { message, signed } = attestations(deliveryFor(order, orderId, f.solver.publicKey), f.s.origin, [
      f.attestors[0]!,
      f.attestors[1]!,
    ])
    signed[1]!.signature[5]! ^= 0xff
    const sent = f.s.send([ed25519Instruction(message, signed), claimIx(f, orderId)], [f.solver])
    expect(sent.ok).toBe(false)
    expect(f.s.tokenBalance(vaultPda(f.s.origin, orderId))).toBe(AMOUNT)
  })

  it('refuses attestations for another order, amount, recipient or solver', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const other = openOk(f)
    const base = deliveryFor(order, orderId, f.solver.publicKey)
    const wrong = [
      { ...base, orderId: other.orderId },
      { ...base, amount: base.amount + 1n },
      { ...base, recipient: evmParty(getAddress('0x00000000000000000000000000000000000000ee')) },
      { ...base, outputToken: evmParty(getAddress('0x00000000000000000000000000000000000000ef')) },
      { ...base, destChain: chainRef('eip155:1') },
      deliveryFor(order, orderId, f.stranger.publicKey),
    ]
    for (const d of wrong) {
      const { message, signed } = attestations(d, f.s.origin, [f.attestors[0]!, f.attestors[1]!])
      expectCustom(f.s.send([ed25519Instruction(message, signed), claimIx(f, orderId)], [f.solver]), E.QUORUM_NOT_MET)
    }
    // Attestations bound to another deployment of origin_settler do not count here either.
    const elsewhere = attestations(base, Keypair.generate().publicKey, [f.attestors[0]!, f.attestors[1]!])
    expectCustom(
      f.s.send([ed25519Instruction(elsewhere.message, elsewhere.signed), claimIx(f, orderId)], [f.solver]),
      E.QUORUM_NOT_MET,
    )
    expect(f.s.tokenBalance(vaultPda(f.s.origin, orderId))).toBe(AMOUNT)
  })

  it('refuses attestations for one solver used by another, and a payout to an account the solver does not own', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const thief = f.stranger
    const thiefToken = f.s.tokenAccount(f.admin, f.mint, thief.publicKey)
    const forSolver = attestations(deliveryFor(order, orderId, f.solver.publicKey), f.s.origin, [
      f.attestors[0]!,
      f.attestors[1]!,
    ])
    expectCustom(
      f.s.send(
        [ed25519Instruction(forSolver.message, forSolver.signed), claimIx(f, orderId, thief.publicKey, thiefToken)],
        [thief],
      ),
      E.QUORUM_NOT_MET,
    )
    expectCustom(
      f.s.send(
        [ed25519Instruction(forSolver.message, forSolver.signed), claimIx(f, orderId, f.solver.publicKey, thiefToken)],
        [thief],
      ),
      E.WRONG_SOLVER_ACCOUNT,
    )
    expect(f.s.tokenBalance(thiefToken)).toBe(0n)
    // Anyone may relay the claim; the tokens still go to the attested solver.
    const sent = f.s.send([ed25519Instruction(forSolver.message, forSolver.signed), claimIx(f, orderId)], [thief])
    expect(sent.err, sent.logs.join('\n')).toBeNull()
    expect(f.s.tokenBalance(f.solverToken)).toBe(AMOUNT)
  })

  it('refuses a claim after expiry', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const { message, signed } = attestations(deliveryFor(order, orderId, f.solver.publicKey), f.s.origin, [
      f.attestors[0]!,
      f.attestors[1]!,
    ])
    f.s.setNow(order.expires + 1n)
    expectCustom(f.s.send([ed25519Instruction(message, signed), claimIx(f, orderId)], [f.solver]), E.ORDER_EXPIRED)
  })

  it('refunds only after expiry, by anyone, only to the source token account, once; no claim after', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const refund = (userToken: PublicKey) =>
      refundInstruction({ program: f.s.origin, orderId, mint: f.mint, userToken, rentPayer: f.solver.publicKey })
    expectCustom(f.s.send([refund(f.userToken)], [f.stranger]), E.ORDER_NOT_EXPIRED)
    f.s.setNow(order.expires + 1n)
    const strangerToken = f.s.tokenAccount(f.admin, f.mint, f.stranger.publicKey)
    expectCustom(f.s.send([refund(strangerToken)], [f.stranger]), E.WRONG_REFUND_ACCOUNT)
    const solverLamports = f.s.lamports(f.solver.publicKey)
    const sent = f.s.send([refund(f.userToken)], [f.stranger])
    expect(sent.err, sent.logs.join('\n')).toBeNull()
    expect(f.s.tokenBalance(f.userToken)).toBe(1_000_000n)
    expect(f.s.lamports(f.solver.publicKey)).toBeGreaterThan(solverLamports) // the vault's rent went back
    expect(decodeOrder(f.s.data(orderPda(f.s.origin, orderId))!).status).toBe(ORDER_STATUS.refunded)
    expectCustom(f.s.send([refund(f.userToken)], [f.stranger]), E.ORDER_NOT_OPEN)
    f.s.setNow(order.expires) // even back inside the window, a refunded order cannot be claimed
    const { message, signed } = attestations(deliveryFor(order, orderId, f.solver.publicKey), f.s.origin, [
      f.attestors[0]!,
      f.attestors[1]!,
    ])
    expectCustom(f.s.send([ed25519Instruction(message, signed), claimIx(f, orderId)], [f.solver]), E.ORDER_NOT_OPEN)
  })

  it('refuses a config account that is not its own', () => {
    const f = setup()
    const { order, orderId } = openOk(f)
    const { message, signed } = attestations(deliveryFor(order, orderId, f.solver.publicKey), f.s.origin, [
      f.attestors[0]!,
      f.attestors[1]!,
    ])
    const ix = claimIx(f, orderId)
    ix.keys[5] = { pubkey: f.userToken, isSigner: false, isWritable: false }
    expectCustom(f.s.send([ed25519Instruction(message, signed), ix], [f.solver]), E.WRONG_ACCOUNT)
  })
})
