import { randomBytes } from 'node:crypto'
import type { SiweResponse } from 'siwe'
import { type Address, getAddress, type Hex } from 'viem'
import { BaseError } from '../../src/errors/index.js'
import type { Store } from '../store/store.js'

/**
 * How long a message may wait for its signature: long enough to read it in a wallet, short enough that a leaked one is
 * useless.
 */
export const SIWE_TTL_MS = 5 * 60_000

/** Where the page is, as the browser reached it: the message binds both (EIP-4361 domain and URI). */
export type SiweOrigin = { domain: string; uri: string }

export type SiweParameters = {
  store: Store
  /** Chains a message may name: the deployment's Base network (a wallet on another chain is asked to switch). */
  chainIds: number[]
  /**
   * Contract wallets (ERC-1271) and not-yet-deployed ones (ERC-6492): siwe recovers plain EOA
   * signatures itself and hands anything else to this check on the Base chain.
   */
  verifyContractSignature(p: { address: Address; message: string; signature: Hex }): Promise<boolean>
  now?: () => number
}

/**
 * Sign-In with Ethereum (EIP-4361) as the dashboard speaks it: the daemon writes the message with a
 * single-use nonce it stored, the wallet signs it, and `verify` refuses a message for another
 * domain, URI or chain, an expired one, a replayed one (its nonce is deleted on first use, even
 * when that use is refused) and a signature that is not the address's.
 */
/**
 * siwe brings ethers (CommonJS, ~150 ms to load): loaded on the first sign-in, not at `parx serve`'s
 * start (issue 26: ready in under a second).
 */
let siweModule: Promise<typeof import('siwe')> | undefined
const loadSiwe = () => (siweModule ??= import('siwe'))

export function siwe(p: SiweParameters) {
  const now = p.now ?? Date.now
  const rejected = (why: string) =>
    new BaseError('SIWE_REJECTED', `sign-in refused: ${why}; ask for a new message and sign again`)
  return {
    async message(
      origin: SiweOrigin,
      body: { address: string; chainId: number },
    ): Promise<{ message: string; nonce: string; expiresAt: string }> {
      if (!p.chainIds.includes(body.chainId)) {
        throw new BaseError(
          'BAD_REQUEST',
          `invalid field 'chainId': the wallet is on chain ${body.chainId}; ` +
            `switch it to chain ${p.chainIds.join(' or ')} to sign in`,
        )
      }
      const t = now()
      const nonce = randomBytes(16).toString('hex')
      await p.store.db.deleteFrom('dashboard_nonces').where('expires_at', '<', t).execute()
      await p.store.db
        .insertInto('dashboard_nonces')
        .values({ nonce, expires_at: t + SIWE_TTL_MS })
        .execute()
      const expiresAt = new Date(t + SIWE_TTL_MS).toISOString()
      const { SiweMessage } = await loadSiwe()
      const message = new SiweMessage({
        domain: origin.domain,
        address: getAddress(body.address),
        uri: origin.uri,
        version: '1',
        chainId: body.chainId,
        nonce,
        statement: 'Sign in to the parx dashboard. This signature costs nothing and moves no funds.',
        issuedAt: new Date(t).toISOString(),
        expirationTime: expiresAt,
      }).prepareMessage()
      return { message, nonce, expiresAt }
    },

    /**
     * The checksummed address that signed, once the message passed every check; its nonce is spent whatever the
     * outcome.
     */
    async verify(origin: SiweOrigin, body: { message: string; signature: string }): Promise<Address> {
      const { SiweMessage } = await loadSiwe()
      let msg: InstanceType<typeof SiweMessage>
      try {
        msg = new SiweMessage(body.message)
      } catch (e) {
        throw rejected(`the message is not an EIP-4361 message (${errorText(e)})`)
      }
      const t = now()
      // Spent first, atomically, whatever follows: of two logins with one message exactly one
      // deletes the row, and a refused attempt (wrong domain, bad signature) has used the message
      // up. Otherwise one nonce would allow unlimited signature guesses, each a contract-wallet
      // eth_call running factory code the caller chose (ERC-6492).
      const spent = await p.store.db
        .deleteFrom('dashboard_nonces')
        .where('nonce', '=', msg.nonce)
        .where('expires_at', '>', t)
        .executeTakeFirst()
      if (Number(spent.numDeletedRows) !== 1)
        throw rejected('the nonce is unknown or already used (a replayed or stale message)')
      if (msg.domain !== origin.domain) throw rejected(`the message is for ${msg.domain}, not ${origin.domain}`)
      if (msg.uri !== origin.uri) throw rejected(`the message is for ${msg.uri}, not ${origin.uri}`)
      if (!p.chainIds.includes(msg.chainId))
        throw rejected(
          `the message names chain ${msg.chainId}; this dashboard signs in on chain ${p.chainIds.join(' or ')}`,
        )
      if (!msg.expirationTime || !msg.issuedAt) throw rejected('the message has no issued-at or expiration time')
      if (Date.parse(msg.expirationTime) - Date.parse(msg.issuedAt) > SIWE_TTL_MS)
        throw rejected('the message is valid for longer than this dashboard allows')
      if (Date.parse(msg.issuedAt) > t + 60_000) throw rejected('the message is issued in the future')
      const result: SiweResponse = await msg.verify(
        { signature: body.signature, domain: origin.domain, nonce: msg.nonce, time: new Date(t).toISOString() },
        {
          suppressExceptions: true,
          verificationFallback: async (_params, _opts, m) => {
            const ok = await p
              .verifyContractSignature({
                address: getAddress(m.address),
                message: m.prepareMessage(),
                signature: body.signature as Hex,
              })
              .catch(() => false)
            return ok
              ? { success: true, data: m }
              : {
                  success: false,
                  data: m,
                  error: { type: 'Signature does not match address of the message.' } as never,
                }
          },
        },
      )
      if (!result.success)
        throw rejected(
          result.error?.type === 'Expired message.'
            ? 'the message has expired'
            : `${result.error?.type ?? 'the signature does not match'}`.replace(/\.$/, '').toLowerCase(),
        )
      return getAddress(msg.address)
    },
  }
}

export type Siwe = ReturnType<typeof siwe>

const errorText = (e: unknown) =>
  (e instanceof Error ? e.message : typeof e === 'string' ? e : 'unreadable').split('\n')[0]!
