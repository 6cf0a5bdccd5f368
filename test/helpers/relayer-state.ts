import pg from 'pg'
import { type Address, createPublicClient, http } from 'viem'

type PoolContent = {
  pending?: Record<string, Record<string, { hash: string }>>
  queued?: Record<string, Record<string, { hash: string }>>
}

/**
 * What a stuck relayer looks like, for a failing hosted test's output: its counts on the node
 * (mined, pending), the node's pool for it (pending and queued nonces), the store's shared counter,
 * and the outbox rows from its mined count up (what was signed and not yet mined). A nonce with no
 * row and no pool entry is a gap no process can fill; a queued entry at the mined count is anvil's
 * stuck queue (daemon/chains/evm/stuck-queue.ts).
 */
export async function relayerState(rpcUrl: string, db: string, chainId: number, relayer: Address): Promise<string> {
  const client = createPublicClient({ transport: http(rpcUrl) })
  const mined = await client.getTransactionCount({ address: relayer, blockTag: 'latest' })
  const pending = await client.getTransactionCount({ address: relayer, blockTag: 'pending' })
  const content = (await client.request({ method: 'txpool_content', params: [] } as never)) as PoolContent
  const mine = (part?: Record<string, Record<string, { hash: string }>>) =>
    Object.entries(part ?? {}).find(([a]) => a.toLowerCase() === relayer.toLowerCase())?.[1] ?? {}
  const nonces = (part: Record<string, { hash: string }>) =>
    Object.keys(part)
      .map(Number)
      .sort((a, b) => a - b)
  const store = new pg.Client({ connectionString: db })
  await store.connect()
  try {
    const counter = await store.query('SELECT next_nonce FROM relayer_nonces WHERE chain_id = $1 AND address = $2', [
      chainId,
      relayer.toLowerCase(),
    ])
    const rows = await store.query(
      'SELECT nonce, purpose, state, hash, created_at FROM tx_outbox WHERE chain_id = $1 AND sender = $2 AND nonce >= $3 ORDER BY nonce, created_at LIMIT 40',
      [chainId, relayer.toLowerCase(), mined],
    )
    return JSON.stringify(
      {
        relayer,
        mined,
        pending,
        storeNext: counter.rows[0]?.next_nonce,
        poolPending: nonces(mine(content.pending)),
        poolQueued: nonces(mine(content.queued)),
        outboxFromMined: rows.rows.map((r) => `${r.nonce} ${r.purpose} ${r.state} ${r.hash} @${r.created_at}`),
      },
      null,
      1,
    )
  } finally {
    await store.end()
  }
}
