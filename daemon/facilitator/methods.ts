import type { Address } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { methods } from '../../src/sdk/x402/types.js'
import { authCaptureMethod } from './evm/auth-capture/index.js'
import { batchSettlementMethod } from './evm/batch-settlement/index.js'
import { permit2Method } from './evm/permit2.js'
import type { EvmRuntime } from './evm/runtime.js'
import { signedAuthorizationMethod } from './evm/signed-authorization.js'
import { uptoMethod } from './evm/upto.js'
import type { PaymentMethod } from './method.js'
import type { SettlementStore } from './settlements.js'
import { delegatedSplMethod } from './svm/delegated-spl.js'
import { exactTransactionMethod } from './svm/exact-transaction.js'
import type { SvmRuntime } from './svm/runtime.js'
import { splUptoMethod } from './svm/upto.js'

export type MethodDeps = {
  evm(network: string): EvmRuntime
  svm(): SvmRuntime
  store: SettlementStore
  /** ERC-6492 factories a counterfactual payer's wallet may be deployed with (config). */
  eip6492Factories(): readonly Address[]
  /**
   * batch-settlement's (and auth-capture's) receiver authorizer for delegating sellers, when this facilitator offers
   * one.
   */
  receiverAuthorizer(): PrivateKeyAccount | undefined
}

/**
 * Every payment method the facilitator settles, per network family. This list is the one place a
 * method is registered; order matters only in that the first whose `matches` accepts a payment wins.
 */
export function paymentMethods(d: MethodDeps): PaymentMethod[] {
  return [
    signedAuthorizationMethod(methods.erc2612, d.evm, d.eip6492Factories),
    signedAuthorizationMethod(methods.eip3009, d.evm, d.eip6492Factories),
    permit2Method(d.evm, d.eip6492Factories),
    uptoMethod(d.evm, d.eip6492Factories),
    batchSettlementMethod(d.evm, d.receiverAuthorizer),
    authCaptureMethod(d.evm, d.receiverAuthorizer, d.eip6492Factories),
    delegatedSplMethod(d.svm, d.store),
    exactTransactionMethod(d.svm),
    splUptoMethod(d.svm, d.store),
  ]
}
