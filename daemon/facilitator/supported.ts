import type { NetworkSpec } from '../../src/networks/registry.js'
import { AUTH_CAPTURE, AUTH_CAPTURE_V1_1 } from '../../src/sdk/x402/evm/auth-capture/contracts.js'
import { BATCH_SETTLEMENT } from '../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { UPTO } from '../../src/sdk/x402/evm/upto.js'
import { PAYMENT_IDENTIFIER } from '../../src/sdk/x402/payment-identifier.js'
import { EXACT, methods, type SupportedKind, type SupportedResponse } from '../../src/sdk/x402/types.js'
import type { FacilitatorDeps } from './deps.js'
import { receiverAuthorizer } from './evm/batch-settlement/authorizer.js'
import { EIP2612_GAS_SPONSORING } from './evm/eip2612-sponsoring.js'
import { servedNetworks, tokensOf } from './resolve.js'

/** x402 versions served, newest first: a client taking the first kind it can use gets v2. */
const VERSIONS = [2, 1] as const

/**
 * GET /supported (docs/facilitator.md "x402 facilitator"): one `exact` kind per network, asset and x402 version, and
 * one v2
 * `upto` kind per asset: on EVM through permit2 (extra.facilitatorAddress: the address the payer's
 * witness names), on Solana through delegated-spl (extra.feePayer / delegate). `extra` carries the
 * method (erc2612 / delegated-spl), the token's name and version, and what a client or seller
 * needs to build a payment: the asset, its decimals, the spender (EVM) or fee payer and delegate
 * (Solana), and every method accepted for the asset.
 */
export function supported(s: FacilitatorDeps): SupportedResponse {
  const kinds: SupportedKind[] = []
  const authorizer = receiverAuthorizer(s)
  for (const spec of servedNetworks(s)) {
    for (const token of tokensOf(s, spec)) {
      const extra = spec.family === 'evm' ? evmExtra(s, spec, token.symbol) : svmExtra(s, token.symbol)
      for (const v of VERSIONS) {
        kinds.push({
          x402Version: v,
          scheme: EXACT,
          network: v === 2 ? spec.caip2 : spec.legacyName,
          extra: { ...extra, asset: token.address, decimals: token.decimals },
        })
      }
      // Metered payments (v2 only, as the reference): the payer's Permit2 signature names this
      // facilitator, the only one its proxy lets settle, so the address is part of the terms.
      if (spec.family === 'evm') {
        kinds.push({
          x402Version: 2,
          scheme: UPTO,
          network: spec.caip2,
          extra: {
            assetTransferMethod: methods.permit2,
            assetTransferMethods: [methods.permit2],
            facilitatorAddress: s.accounts.facilitator,
            name: extra.name,
            version: extra.version,
            symbol: token.symbol,
            asset: token.address,
            decimals: token.decimals,
          },
        })
        // Payment channels where the chain has the scheme's contracts; sellers may delegate claim
        // and refund authorization to our receiver authorizer when there is one
        // (./evm/batch-settlement/authorizer.ts). Deposits by ERC-3009 or through Permit2.
        if (s.evm[spec.key]?.contracts.batchSettlement && s.evm[spec.key]!.tokens[token.symbol]?.eip3009) {
          kinds.push({
            x402Version: 2,
            scheme: BATCH_SETTLEMENT,
            network: spec.caip2,
            extra: {
              ...(authorizer ? { receiverAuthorizer: authorizer.address } : {}),
              assetTransferMethods: [methods.eip3009, methods.permit2],
              name: extra.name,
              version: extra.version,
              symbol: token.symbol,
              asset: token.address,
              decimals: token.decimals,
            },
          })
        }
        // Refundable payments (./evm/auth-capture): this facilitator is a `delegated` operator, its
        // executor account the escrow's operator; no fee terms, so servers publish zero fee bounds.
        // Every token: an ERC-3009 one is collected by either method, any other through Permit2 only.
        const chainToken = s.evm[spec.key]?.tokens[token.symbol]
        if (s.evm[spec.key]?.contracts.authCaptureEscrow && chainToken) {
          kinds.push({
            x402Version: 2,
            scheme: AUTH_CAPTURE,
            network: spec.caip2,
            extra: {
              captureAuthorizer: s.accounts.facilitator,
              operatorType: 'delegated',
              ...(authorizer ? { receiverAuthorizer: authorizer.address } : {}),
              authCaptureEscrow: AUTH_CAPTURE_V1_1.escrow,
              assetTransferMethods: chainToken.eip3009 ? [methods.eip3009, methods.permit2] : [methods.permit2],
              name: extra.name,
              version: extra.version,
              symbol: token.symbol,
              asset: token.address,
              decimals: token.decimals,
            },
          })
        }
      } else {
        // Ours on Solana (./svm/upto.ts): the payer's delegation to this signer is what pays.
        kinds.push({
          x402Version: 2,
          scheme: UPTO,
          network: spec.caip2,
          extra: {
            ...extra,
            assetTransferMethods: [methods.delegatedSpl],
            asset: token.address,
            decimals: token.decimals,
          },
        })
      }
    }
  }
  return {
    kinds,
    // The reference's EIP-2612 gas sponsoring for permit2 (./evm/eip2612-sponsoring.ts), and
    // payment-identifier: an id in the payload makes verify and settle idempotent (./idempotent.ts); the bazaar when
    // the listing is served.
    extensions: [EIP2612_GAS_SPONSORING, PAYMENT_IDENTIFIER, ...(s.extensions ?? [])],
    signers: { 'eip155:*': [s.accounts.facilitator], 'solana:*': [s.accounts.solanaFacilitator] },
  }
}

function evmExtra(s: FacilitatorDeps, spec: NetworkSpec, symbol: string) {
  const t = s.evm[spec.key]!.tokens[symbol]!
  // Permit2 takes any ERC-20 the payer approved to it; the proxy's presence is checked per payment.
  const accepted = t.eip3009 ? [methods.erc2612, methods.eip3009, methods.permit2] : [methods.erc2612, methods.permit2]
  return {
    assetTransferMethod: methods.erc2612,
    name: t.permitDomain?.name ?? symbol,
    version: t.permitDomain?.version ?? '1',
    symbol,
    spender: s.accounts.facilitator,
    assetTransferMethods: accepted,
  }
}

function svmExtra(s: FacilitatorDeps, symbol: string) {
  const signer = s.accounts.solanaFacilitator
  return {
    // SPL mints have no signing domain; the symbol names the token and the version is the message format's.
    assetTransferMethod: methods.delegatedSpl,
    name: symbol,
    version: '1',
    symbol,
    feePayer: signer,
    delegate: signer,
    assetTransferMethods: [methods.delegatedSpl, methods.svmTransaction],
  }
}
