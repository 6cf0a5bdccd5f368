import { afterAll, beforeAll, expect } from 'vitest'
import { TOKEN_A, TOKEN_B, USDC } from '../../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './daemon.js'
import { type BuildParameters, buildBody } from './swap-orders.js'
import { newUser, type SwapUser, snapshot } from './swap-users.js'

export type RejectKit = {
  d: TestDaemon
  key: string
  /** Holds 20 000 USDC, 1 000 PUSD and 1 000 XUSD. */
  u: SwapUser
  /** Holds 1 000 USDC. */
  other: SwapUser
  post(path: string, body: unknown, headers?: Record<string, string>): ReturnType<TestDaemon['raw']>
  build(p: BuildParameters, who?: SwapUser): ReturnType<typeof buildBody>
  /** A correct 10 USDC -> PUSD entry buy of `u`, unless told otherwise. */
  entry(o?: Partial<BuildParameters>): ReturnType<typeof buildBody>
  /**
   * Sends a request that must fail with `code`, and asserts that no balance, permit nonce, router
   * nonce or ETH of the user, the other wallet or the solver moved: nothing reached the chain.
   */
  rejected(
    body: unknown,
    code: string,
    o?: { status?: number; says?: string | RegExp; path?: string; headers?: Record<string, string> },
  ): Promise<string>
}

/** A daemon and two funded wallets for the files that send bad requests; started and stopped with the file. */
export function useRejectKit(): RejectKit {
  const kit = {} as RejectKit
  beforeAll(async () => {
    kit.d = await startTestDaemon()
    kit.key = await kit.d.partnerKey()
    kit.u = await newUser(kit.d, kit.key, { [USDC]: '20000', [TOKEN_A]: '1000', [TOKEN_B]: '1000' })
    kit.other = await newUser(kit.d, kit.key, { [USDC]: '1000' })
  })
  afterAll(async () => kit.d?.close())

  const everyone = () => ({ user: kit.u.address, other: kit.other.address, solver: kit.d.services.accounts.solver })
  kit.post = (path, body, headers = { 'x-api-key': kit.key }) =>
    kit.d.raw(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
  kit.build = (p, who = kit.u) => buildBody(kit.d, kit.key, who.account, p)
  kit.entry = (o = {}) => kit.build({ in: USDC, out: TOKEN_A, amount: '10', ...o })
  kit.rejected = async (body, code, o = {}) => {
    const before = await snapshot(kit.d, everyone())
    const res = await kit.post(o.path ?? '/api/base/swap', body, o.headers)
    expect({ status: res.status, code: res.body.code }, res.body.error).toEqual({ status: o.status ?? 400, code })
    expect(typeof res.body.error).toBe('string')
    if (o.says) expect(res.body.error).toMatch(o.says)
    expect(await snapshot(kit.d, everyone())).toEqual(before)
    return res.body.error as string
  }
  return kit
}
