import type { PublicKey } from '@solana/web3.js'
import bs58 from 'bs58'
import { BaseError } from '../../src/errors/index.js'
import { signMessage } from '../../src/sdk/solana/sign.js'
import { rescaleExact } from '../../src/sdk/swap/amounts.js'
import { fromBaseUnits, toBaseUnits } from '../../src/sdk/units.js'
import { keyBase58 } from '../chains/solana/key-memo.js'
import { legacyWire } from '../chains/solana/legacy-message.js'
import { randomHex } from '../random-hex.js'
import { ui } from '../swap/inventory.js'
import { usdToUnits } from '../swap/limits.js'
import { chainRent, chainTokens, rpc, type Token, walletKey } from './accounts.js'
import type { SolDeps } from './deps.js'
import { available, checkSolInventory, checkSolverSol } from './inventory.js'
import { resolveNet } from './net.js'
import { settleInBackground, settleOpenSwaps } from './open-swaps.js'
import { checkFlow, resolveSolPair, type SolPair } from './pairs.js'
import { checkSolRedeemCeiling, checkSolSlippage, planSolRedeem } from './redeem-price.js'
import { simulateSwap } from './simulate.js'
import { LAMPORTS_PER_SIGNATURE, swapMessage } from './swap-tx.js'
import { readWallets } from './wallets.js'

/** A validated POST /api/sol/swap or /api/sol/redeem body. */
export type SolSwapRequest = {
  net?: string
  user: string
  uiAmount: string
  in: string
  out: string
  /** Optional floor in output base units (a quote's minOutBase): refuse a worse price. */
  minOutBase?: bigint
}

/**
 * Builds the swap server-side, checks it, co-signs it as fee payer and records it before handing
 * it out. The solver signs only what this function assembled from the request's fields; a client
 * never supplies an instruction. Checks fail before anything is signed, each with its code.
 */
export async function buildSolSwap(d: SolDeps, req: SolSwapRequest) {
  const network = resolveNet(d.chain.spec, req.net)
  const pair = resolveSolPair(d.chain, req.in, req.out)
  checkFlow(pair, d.flowEnabled)
  const user = walletKey(req.user, 'user', d.solver.publicKey)
  const amountIn = toBaseUnits(req.uiAmount, pair.input.decimals, 'uiAmount')
  const parOut =
    pair.kind === 'redeem' ? undefined : rescaleExact(amountIn, pair.input.decimals, pair.output.decimals, 'uiAmount')
  checkSize(d, pair, amountIn)

  const tokens = await chainTokens(d.chain)
  const input = tokens[pair.input.symbol]!
  const output = tokens[pair.output.symbol]!
  // A redemption's price depends on exactly how much USDC is free, so open swaps settle first. Par
  // swaps and entry buys settle them only when the output looks short: an unsettled swap can only
  // under-state what is free.
  if (pair.kind === 'redeem') await settleOpenSwaps(d)
  let state = await readState(d, user, input, output)
  if (pair.kind !== 'redeem') {
    if ((await available(d, state.solver.tokens[output.symbol]!, state.mark)) < parOut!) {
      await settleOpenSwaps(d)
      state = await readState(d, user, input, output)
    } else settleInBackground(d)
  }
  const { solver, wallet, latest, rent, mark } = state

  // What is still free is read, checked and reserved (inserted) under the reservation lock of
  // this output mint, so two concurrent builds never promise the same units.
  const { signature, wire, amountOut, create } = await d.reservations.run(
    `${network}:${keyBase58(output.mint)}`,
    async () => {
      const solverIn = solver.tokens[input.symbol]!
      const solverOut = solver.tokens[output.symbol]!
      const userIn = wallet.tokens[input.symbol]!
      const userOut = wallet.tokens[output.symbol]!
      const free = await available(d, solverOut, mark)
      let amountOut = parOut!
      if (pair.kind === 'redeem') {
        const plan = planSolRedeem({
          amountIn,
          inDecimals: input.decimals,
          outDecimals: output.decimals,
          reserveIn: solverIn.balance,
          reserveOut: free,
          slippageBpsMax: d.limits.slippageBpsMax,
        })
        checkSolSlippage(plan, input.symbol, input.decimals, d.limits.slippageBpsMax)
        amountOut = plan.priced.out
      }
      if (req.minOutBase !== undefined && amountOut < req.minOutBase) {
        throw new BaseError(
          'QUOTE_STALE',
          `this swap pays ${amountOut} ${output.symbol} base units now, below ` +
            `minOutBase ${req.minOutBase}: re-quote (GET /api/sol/redeem/quote) and retry`,
        )
      }
      checkSolInventory(solverOut, free, amountOut)
      if (userIn.balance < amountIn) {
        throw new BaseError(
          'INSUFFICIENT_BALANCE',
          `${keyBase58(user)} holds ${fromBaseUnits(userIn.balance, input.decimals)} ` +
            `${input.symbol} in its associated token account, less than uiAmount ` +
            `${fromBaseUnits(amountIn, input.decimals)}: fund the wallet or reduce the amount`,
        )
      }
      const create = { userOutput: !userOut.exists, solverInput: !solverIn.exists }
      const newAccounts = BigInt(Number(create.userOutput) + Number(create.solverInput))
      checkSolverSol(solver.lamports, 2n * LAMPORTS_PER_SIGNATURE + rent.system + newAccounts * rent.tokenAccount)

      const message = swapMessage({
        solver: d.solver.publicKey,
        user,
        input,
        output,
        amountIn,
        amountOut,
        create,
        blockhash: latest.blockhash,
        memo: `parx:${pair.kind}:${randomHex(8)}`,
      })
      const solverSignature = signMessage(d.solver, message)
      const signature = bs58.encode(solverSignature)
      // The user's signature is the one missing: the user signs and submits.
      const wire = legacyWire([solverSignature, null], message)
      await d.store.insert({
        signature,
        network,
        kind: pair.kind,
        user: keyBase58(user),
        inSymbol: input.symbol,
        outSymbol: output.symbol,
        outMint: keyBase58(output.mint),
        inAmount: amountIn,
        outAmount: amountOut,
        blockhash: latest.blockhash,
        lastValidBlockHeight: latest.lastValidBlockHeight,
      })
      return { signature, wire, amountOut, create }
    },
  )
  try {
    await simulateSwap(d.chain.reads, wire)
  } catch (e) {
    await d.store.discard(signature)
    throw e
  }
  return {
    txB64: wire.toString('base64'),
    signature,
    blockhash: latest.blockhash,
    lastValidBlockHeight: latest.lastValidBlockHeight,
    kind: pair.kind,
    network,
    user: keyBase58(user),
    in: input.symbol,
    out: output.symbol,
    inAmount: ui(amountIn, input.decimals),
    inAmountBase: amountIn.toString(),
    outAmount: ui(amountOut, output.decimals),
    outAmountBase: amountOut.toString(),
    inMint: keyBase58(input.mint),
    outMint: keyBase58(output.mint),
    feePayer: keyBase58(d.solver.publicKey),
    createsTokenAccount: create.userOutput,
    confirm: `/api/sol/confirm?sig=${signature}`,
  }
}

export type SolSwapBuilt = Awaited<ReturnType<typeof buildSolSwap>>

/** Solver and user balances, a fresh blockhash and the rent, with the settling mark taken before the reads. */
async function readState(d: SolDeps, user: PublicKey, input: Token, output: Token) {
  const mark = await d.store.mark()
  const [[solver, wallet], latest, rent] = await Promise.all([
    readWallets(d.chain.reads, [d.solver.publicKey, user], [input, output]),
    rpc(() => d.chain.reads.latestBlockhash('confirmed')),
    chainRent(d.chain),
  ])
  return { mark, solver: solver!, wallet: wallet!, latest, rent }
}

/** Size limits, checked before any chain read: `max` for par swaps and entry buys, the redemption ceiling otherwise. */
function checkSize(d: SolDeps, pair: SolPair, amountIn: bigint): void {
  const { input } = pair
  if (pair.kind === 'redeem') return checkSolRedeemCeiling(amountIn, input.decimals, input.symbol, d.limits, 'uiAmount')
  const max = d.limits.maxUsd
  if (max === null || amountIn <= usdToUnits(max, input.decimals)) return
  throw new BaseError(
    'AMOUNT_TOO_LARGE',
    `uiAmount ${fromBaseUnits(amountIn, input.decimals)} ${input.symbol} is above the per-swap limit ` +
      `max = ${max} (see /api/sol/info): reduce the size, e.g. split it into swaps of at most ${max}`,
  )
}
