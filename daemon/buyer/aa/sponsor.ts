import { type Address, concat, type Hex, type LocalAccount, numberToHex, pad } from 'viem'
import type {
  GetPaymasterDataParameters,
  GetPaymasterDataReturnType,
  GetPaymasterStubDataReturnType,
} from 'viem/account-abstraction'
import { BaseError } from '../../../src/errors/index.js'
import { paymasterHash, type SponsoredFields } from './paymaster-hash.js'

export type SponsorParameters = {
  paymaster: Address
  /** The key VerifyingPaymaster.signer names. */
  signer: LocalAccount
  /** Which senders the platform pays for (its agents' wallets); anything else is refused before signing. */
  sponsors: (sender: Address) => boolean | Promise<boolean>
  /** How long a signature stays valid (default 600 s). */
  validForSeconds?: number
  /** Seconds since the epoch on the clock the EntryPoint checks validUntil against (tests of expiry pass their own). */
  now?: () => number | Promise<number>
}

/** Generous for one ECDSA recovery and the hash; no postOp (validation returns no context). */
export const PAYMASTER_VERIFICATION_GAS = 60_000n
/** A well-formed 65-byte signature for gas estimation; it recovers to nobody we know. */
const STUB_SIGNATURE: Hex = `0x${'ff'.repeat(32)}${'7f'.repeat(32)}1c`

const timestamps = (validUntil: number, validAfter: number): Hex =>
  concat([pad(numberToHex(validUntil), { size: 6 }), pad(numberToHex(validAfter), { size: 6 })])

/**
 * The paymaster half of a smart account client (viem's `paymaster: { getPaymasterStubData,
 * getPaymasterData }`): the stub lets the bundler estimate gas, then the real data carries the
 * sponsor's signature over VerifyingPaymaster.getHash of the final operation.
 *
 * @example
 * const sponsor = createSponsor({ paymaster, signer: sponsorKey, sponsors: (a) => agents.has(a) })
 * createSmartAccountClient({ account, bundlerTransport, paymaster: sponsor })
 */
export function createSponsor(p: SponsorParameters) {
  const now = p.now ?? (() => Math.floor(Date.now() / 1000))
  const gas = { paymasterVerificationGasLimit: PAYMASTER_VERIFICATION_GAS, paymasterPostOpGasLimit: 0n }

  async function checkSender(sender: Address) {
    if (!(await p.sponsors(sender)))
      throw new BaseError('FORBIDDEN', `the platform does not sponsor operations of ${sender}`)
  }

  return {
    async getPaymasterStubData(op: GetPaymasterDataParameters): Promise<GetPaymasterStubDataReturnType> {
      await checkSender(op.sender)
      return { paymaster: p.paymaster, paymasterData: concat([timestamps(0, 0), STUB_SIGNATURE]), ...gas }
    },
    async getPaymasterData(op: GetPaymasterDataParameters): Promise<GetPaymasterDataReturnType> {
      await checkSender(op.sender)
      const validUntil = (await now()) + (p.validForSeconds ?? 600)
      const validAfter = 0
      const fields = { ...op, ...gas } as unknown as SponsoredFields
      const hash = paymasterHash(fields, { chainId: op.chainId, paymaster: p.paymaster, validUntil, validAfter })
      const signature = await p.signer.signMessage({ message: { raw: hash } })
      return { paymaster: p.paymaster, paymasterData: concat([timestamps(validUntil, validAfter), signature]), ...gas }
    },
  }
}

export type Sponsor = ReturnType<typeof createSponsor>
