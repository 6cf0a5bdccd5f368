import { Keypair } from '@solana/web3.js'
import { getAddress } from 'viem'
import {
  claimInstruction,
  ed25519Instruction,
  fillInstruction,
  initConfigInstruction,
  openInstruction,
  refundInstruction,
} from '../contracts/solana/client.js'
import { attestations, deliveryFor, randomNonce } from '../contracts/solana/testing/attest.js'
import { type Sent, SettlementSvm } from '../contracts/solana/testing/svm.js'
import { chainRef, evmParty, type SolOrder, solOrderId } from '../contracts/xchain/statement.js'
import { report, summary } from './lib.js'

/**
 * Compute units of origin_settler open / claim / refund and dest_settler fill, our built .so on
 * litesvm (whole transaction; the Ed25519 precompile's checks are outside the program's budget).
 */
export async function benchXchainCu(): Promise<void> {
  const s = new SettlementSvm()
  const [admin, solver, stranger] = [Keypair.generate(), Keypair.generate(), Keypair.generate()]
  const user = Keypair.generate()
  for (const k of [admin, solver, stranger]) s.airdrop(k.publicKey)
  const attestors = [Keypair.generate(), Keypair.generate(), Keypair.generate()]
  const mint = s.createMint(admin)
  const userToken = s.tokenAccount(admin, mint, user.publicKey, 100_000_000n)
  const solverToken = s.tokenAccount(admin, mint, solver.publicKey, 10_000_000n)
  s.setUpgradeAuthority(s.origin, admin.publicKey)
  must(
    s.send(
      [
        initConfigInstruction({
          program: s.origin,
          admin: admin.publicKey,
          attestors: attestors.map((a) => a.publicKey),
        }),
      ],
      [admin],
    ),
    'init_config',
  )

  const open = () => {
    const order: SolOrder = {
      program: s.origin.toBytes(),
      user: user.publicKey.toBytes(),
      inputMint: mint.toBytes(),
      inputAmount: 1_000_000n,
      destChain: chainRef('eip155:84530017'),
      outputToken: evmParty(getAddress('0x00000000000000000000000000000000000000b5')),
      outputAmount: 10n ** 18n,
      recipient: evmParty(getAddress('0x00000000000000000000000000000000000000a1')),
      fillDeadline: s.now() + 600n,
      expires: s.now() + 3600n,
      nonce: randomNonce(),
    }
    const orderId = solOrderId(order)
    const sent = must(
      s.send([openInstruction({ order, orderId, payer: solver.publicKey, userToken })], [solver, user]),
      'open',
    )
    return { order, orderId, sent }
  }

  // Open's cost depends on the order id (the canonical PDA bump search), so it is sampled.
  const opens = Array.from({ length: 20 }, () => open().sent.computeUnits)
  const o = summary(opens)
  report('xchain.sol.open_cu', o.p50, 'CU', {
    program: 'origin_settler',
    feePayer: 'solver',
    orders: o.n,
    min: Math.min(...opens),
    max: Math.max(...opens),
  })
  const a = open()
  const { message, signed } = attestations(deliveryFor(a.order, a.orderId, solver.publicKey), s.origin, [
    attestors[0]!,
    attestors[1]!,
  ])
  const claim = must(
    s.send(
      [
        ed25519Instruction(message, signed),
        claimInstruction({
          program: s.origin,
          orderId: a.orderId,
          mint,
          solver: solver.publicKey,
          solverToken,
          rentPayer: solver.publicKey,
        }),
      ],
      [solver],
    ),
    'claim',
  )
  report('xchain.sol.claim_cu', claim.computeUnits, 'CU', {
    program: 'origin_settler',
    attestations: 2,
    ed25519Instructions: 1,
  })

  const b = open()
  s.setNow(b.order.expires + 1n)
  const refund = must(
    s.send(
      [refundInstruction({ program: s.origin, orderId: b.orderId, mint, userToken, rentPayer: solver.publicKey })],
      [stranger],
    ),
    'refund',
  )
  report('xchain.sol.refund_cu', refund.computeUnits, 'CU', { program: 'origin_settler' })

  const recipient = Keypair.generate().publicKey
  const recipientToken = s.tokenAccount(admin, mint, recipient)
  const fill = must(
    s.send(
      [
        fillInstruction({
          program: s.dest,
          solver: solver.publicKey,
          solverToken,
          recipientToken,
          mint,
          fill: {
            orderId: `0x${'ab'.repeat(32)}`,
            recipient,
            amount: 1_000_000n,
            claimant: evmParty(getAddress('0x00000000000000000000000000000000000000c1')),
            fillDeadline: s.now() + 600n,
          },
        }),
      ],
      [solver],
    ),
    'fill',
  )
  report('xchain.sol.fill_cu', fill.computeUnits, 'CU', { program: 'dest_settler' })
}

function must(sent: Sent, what: string): Sent {
  if (!sent.ok) throw new Error(`${what} failed: ${JSON.stringify(sent.err)}\n${sent.logs.join('\n')}`)
  return sent
}
