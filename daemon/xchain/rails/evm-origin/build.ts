import { randomBytes } from 'node:crypto'
import { PublicKey } from '@solana/web3.js'
import { type Address, encodeFunctionData, erc20Abi } from 'viem'
import * as PermitToken from '../../../../contracts/evm/artifacts/PermitToken.js'
import * as SourceEscrow from '../../../../contracts/evm/artifacts/SourceEscrow.js'
import {
  chainRef,
  type EvmOrder,
  evmOrderId,
  evmOrderTypes,
  SOURCE_ESCROW_DOMAIN,
  solParty,
} from '../../../../contracts/xchain/statement.js'
import { BaseError } from '../../../../src/errors/index.js'
import { permitTypes } from '../../../../src/sdk/eip712.js'
import { rescaleExact } from '../../../../src/sdk/swap/amounts.js'
import { fromBaseUnits, toBaseUnits } from '../../../../src/sdk/units.js'
import { type EvmOriginBuildRequest, type EvmOriginBuilt, xchainPaths } from '../../../../src/sdk/xchain/wire.js'
import { chainTokens, rpc } from '../../../sol/accounts.js'
import { ui } from '../../../swap/inventory.js'
import { usdToUnits } from '../../../swap/limits.js'
import type { NewOrder } from '../../order-store.js'
import { solanaNow } from '../sol-origin/chain-reads.js'
import { baseNow } from './chain-reads.js'
import type { EvmOriginDeps } from './deps.js'
import { encodeEvmOrder, orderJson } from './order-data.js'

/**
 * POST /api/xchain/evm-origin/open/build: the order the user locks in the Base SourceEscrow, with
 * what to sign for the gasless open (order + permit, relayed as openFor by the solver) and the
 * plain approve + open calls for a wallet that pays its own gas. Par: the output is the input
 * rescaled to the Solana mint's decimals, exactly.
 */
export async function prepareEvmOrigin(d: EvmOriginDeps, req: EvmOriginBuildRequest) {
  const escrow = d.base.contracts.escrow
  if (!escrow || !d.base.contracts.verifier || !d.solana.programs.destSettler) {
    throw new BaseError(
      'FLOW_DISABLED',
      `the evm-origin contracts are not deployed on ${d.base.key} and ${d.solana.key}: the evm-origin rail is off`,
    )
  }
  const input = d.base.tokens[req.inSym]
  if (!input)
    throw new BaseError(
      'UNKNOWN_TOKEN',
      `inSym ${req.inSym} is not a token on ${d.base.key}; use one of ${Object.keys(d.base.tokens).join(', ')}`,
    )
  if (!input.permitDomain)
    throw new BaseError(
      'UNKNOWN_TOKEN',
      `inSym ${req.inSym} on ${d.base.key} has no EIP-2612 permit, which the gasless open needs`,
    )
  const tokens = await chainTokens(d.solana)
  const output = tokens[req.outSym]
  if (!output)
    throw new BaseError(
      'UNKNOWN_TOKEN',
      `outSym ${req.outSym} is not a token on ${d.solana.key}; use one of ${Object.keys(tokens).join(', ')}`,
    )
  const recipient = new PublicKey(req.recipientSol)
  const user = req.user as Address

  const inputAmount = toBaseUnits(req.uiAmount, input.decimals, 'uiAmount')
  const cap = d.limits.xchainMaxUsd
  if (inputAmount > usdToUnits(cap, input.decimals)) {
    throw new BaseError(
      'AMOUNT_TOO_LARGE',
      `uiAmount ${fromBaseUnits(inputAmount, input.decimals)} ${input.symbol} is above the cross-chain ` +
        `cap of ${cap} (xchainMaxUsd): reduce the size, e.g. split it into orders of at most ${cap}`,
    )
  }
  const outputAmount = rescaleExact(inputAmount, input.decimals, output.decimals, 'uiAmount')
  if (outputAmount >= 1n << 64n)
    throw new BaseError('AMOUNT_OUT_OF_RANGE', `uiAmount ${req.uiAmount} is more than a Solana token account can hold`)

  const client = d.base.client
  const [balance, permitNonce, now] = await Promise.all([
    client.readContract({ address: input.address, abi: erc20Abi, functionName: 'balanceOf', args: [user] }),
    client.readContract({ address: input.address, abi: PermitToken.abi, functionName: 'nonces', args: [user] }),
    baseNow(client, d.base.spec.rpc === 'embedded'),
  ]).catch((e: unknown) => {
    throw new BaseError(
      'CHAIN_UNAVAILABLE',
      `${d.base.key} did not answer (${e instanceof Error ? e.message : String(e)}); retry shortly`,
      { cause: e },
    )
  })
  const solNow = await rpc(() => solanaNow(d.solana.reads))
  if (balance < inputAmount) {
    throw new BaseError(
      'INSUFFICIENT_BALANCE',
      `${user} holds ${fromBaseUnits(balance, input.decimals)} ${input.symbol}, less than ` +
        `uiAmount ${fromBaseUnits(inputAmount, input.decimals)}: fund the wallet or reduce the amount`,
    )
  }

  // The fill deadline must hold by both clocks: the escrow checks it (and expires) by Base's,
  // dest_settler by Solana's. Counted from the later of the two, so a cluster whose clock runs ahead
  // (a real cluster's may drift; the embedded one keeps wall time) still leaves the solver its full fill window.
  const fillDeadline = Math.max(now, solNow) + d.timing.fillSeconds
  const order: EvmOrder = {
    user,
    inputToken: input.address,
    inputAmount,
    destChain: chainRef(d.solana.spec.caip2),
    outputToken: solParty(output.mint.toBytes()),
    outputAmount,
    recipient: solParty(recipient.toBytes()),
    fillDeadline,
    expires: fillDeadline + d.timing.expirySeconds - d.timing.fillSeconds,
    nonce: randomBytes(8).readBigUInt64LE(),
  }
  const orderId = evmOrderId(order, d.base.chainId, escrow)
  const wire = orderJson(order)

  const newOrder: NewOrder = {
    orderId,
    rail: 'evm-origin',
    user,
    inSymbol: input.symbol,
    outSymbol: output.symbol,
    inputToken: input.address,
    inputAmount,
    destChain: order.destChain as `0x${string}`,
    outputToken: output.mint.toBase58(),
    outputAmount,
    recipient: recipient.toBase58(),
    fillDeadline: order.fillDeadline,
    expires: order.expires,
    nonce: order.nonce,
    orderData: encodeEvmOrder(order),
    // The lock is the user's or the relay's: known once submitted (openFor) or seen on chain (open).
    openRef: null,
    openValidUntil: null,
  }
  const response: EvmOriginBuilt = {
    rail: 'evm-origin',
    orderId,
    order: wire,
    inAmount: ui(inputAmount, input.decimals),
    outAmount: ui(outputAmount, output.decimals),
    inAmountBase: inputAmount.toString(),
    outAmountBase: outputAmount.toString(),
    inToken: input.symbol,
    outToken: output.symbol,
    recipient: recipient.toBase58(),
    fillDeadline: order.fillDeadline,
    expires: order.expires,
    chainId: d.base.chainId,
    escrow,
    gasless: {
      order: {
        domain: { ...SOURCE_ESCROW_DOMAIN, chainId: d.base.chainId, verifyingContract: escrow },
        types: evmOrderTypes,
        primaryType: 'Order',
        message: wire,
      },
      permit: {
        domain: { ...input.permitDomain, chainId: d.base.chainId, verifyingContract: input.address },
        types: permitTypes,
        primaryType: 'Permit',
        message: {
          owner: user,
          spender: escrow,
          value: inputAmount.toString(),
          nonce: permitNonce.toString(),
          deadline: String(order.fillDeadline),
        },
      },
      submit: xchainPaths.evmSubmit,
    },
    calls: {
      approve: {
        to: input.address,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [escrow, inputAmount] }),
      },
      open: { to: escrow, data: encodeFunctionData({ abi: SourceEscrow.abi, functionName: 'open', args: [order] }) },
    },
    status: `/api/xchain/status/${orderId}?rail=evm-origin`,
  }
  return { order: newOrder, reserve: { network: d.solana.key, token: output.symbol, amount: outputAmount }, response }
}
