import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, type Keypair, PublicKey, Transaction } from '@solana/web3.js'
import type { TestDaemon } from './daemon.js'

/** What a Solana integrator holds: the daemon, a partner key, and an unmodified web3.js Connection on its RPC. */
export type SolClient = {
  d: TestDaemon
  key: string
  connection: Connection
  solver: PublicKey
  mints: Record<string, PublicKey>
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: any }>
  fund(to: PublicKey, token: string, amount: string): Promise<void>
  /** Base units in the owner's associated token account (0 when it does not exist). */
  tokenBalance(owner: PublicKey, symbol: string): Promise<bigint>
  solBalance(owner: PublicKey): Promise<bigint>
  /** Builds through the API, signs as `user` and submits to the RPC; resolves with the signature once confirmed. */
  swap(user: Keypair, body: Record<string, unknown>, path?: string): Promise<{ built: any; signature: string }>
}

export async function solClient(d: TestDaemon): Promise<SolClient> {
  const key = await d.partnerKey()
  const connection = new Connection(d.urls.rpc[d.services.solana.key]!, 'confirmed')
  const info = await d.call('/api/sol/info')
  const mints = Object.fromEntries(
    Object.entries(info.mints as Record<string, { mint: string }>).map(([s, m]) => [s, new PublicKey(m.mint)]),
  )
  const json = (headers: Record<string, string> = {}) => ({
    'content-type': 'application/json',
    'x-api-key': key,
    ...headers,
  })
  const c: SolClient = {
    d,
    key,
    connection,
    mints,
    solver: new PublicKey(info.solver),
    post: (path, body, headers) =>
      d.raw(path, {
        method: 'POST',
        headers: json(headers),
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    get: (path, headers) => d.raw(path, { headers: json(headers) }),
    async fund(to, token, amount) {
      await d.call('/api/local/faucet', { body: { network: d.services.solana.key, to: to.toBase58(), token, amount } })
    },
    async tokenBalance(owner, symbol) {
      const ata = getAssociatedTokenAddressSync(mints[symbol]!, owner)
      const info = await connection.getAccountInfo(ata)
      return info ? BigInt((await connection.getTokenAccountBalance(ata)).value.amount) : 0n
    },
    solBalance: async (owner) => BigInt(await connection.getBalance(owner)),
    async swap(user, body, path = '/api/sol/swap') {
      const r = await c.post(path, { user: user.publicKey.toBase58(), ...body })
      if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body)}`)
      const built = r.body
      const tx = Transaction.from(Buffer.from(built.txB64, 'base64'))
      tx.partialSign(user)
      const signature = await connection.sendRawTransaction(tx.serialize())
      const { value } = await connection.confirmTransaction({
        signature,
        blockhash: built.blockhash,
        lastValidBlockHeight: built.lastValidBlockHeight,
      })
      if (value.err) throw new Error(`swap ${signature} failed: ${JSON.stringify(value.err)}`)
      return { built, signature }
    },
  }
  return c
}
