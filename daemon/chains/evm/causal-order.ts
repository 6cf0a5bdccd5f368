/** What causalOrder needs of an outbox row. */
export type Ordered = {
  network: string
  sender: string
  nonce: number | bigint | string
  created_at: number | bigint | string
}

/**
 * The replay order of unconfirmed transactions: each sender's in nonce order (a later nonce cannot
 * land before an earlier one), and across senders in the order they were signed. The second matters
 * after an embedded chain lost its last blocks: a solver's relay that spends tokens another key
 * minted just before (the faucet, then a gasless open) only succeeds when the mint lands again
 * first, whichever sender's address sorts first.
 */
export function causalOrder<R extends Ordered>(rows: readonly R[]): R[] {
  const queues = new Map<string, R[]>()
  for (const r of rows) {
    const key = `${r.network}\u0000${r.sender}`
    let q = queues.get(key)
    if (!q) queues.set(key, (q = []))
    q.push(r)
  }
  for (const q of queues.values()) q.sort((a, b) => Number(BigInt(a.nonce) - BigInt(b.nonce)))
  const out: R[] = []
  const heads = [...queues.values()]
  while (out.length < rows.length) {
    // The queue whose next transaction was signed first (ties: the earlier sender, so it is stable).
    let best = -1
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i]![0]
      if (!h) continue
      const b = best < 0 ? undefined : heads[best]![0]!
      if (
        !b ||
        Number(h.created_at) < Number(b.created_at) ||
        (Number(h.created_at) === Number(b.created_at) && h.sender < b.sender)
      )
        best = i
    }
    out.push(heads[best]!.shift()!)
  }
  return out
}
