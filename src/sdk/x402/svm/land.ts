import type { Connection } from '@solana/web3.js'

/** A transaction's fate: landed and confirmed, failed (refused or failed on chain), or not known yet. */
export type Landing =
  | { state: 'ok'; signature: string }
  | { state: 'failed'; signature?: string; message: string }
  | { state: 'pending'; signature: string }

/** Broadcasts signed bytes (with preflight) and polls until confirmed, failed, or `timeoutMs` passes. */
export async function landTransaction(
  connection: Connection,
  wire: Uint8Array,
  pollMs: number,
  timeoutMs = 90_000,
): Promise<Landing> {
  let signature: string
  try {
    signature = await connection.sendRawTransaction(wire, {
      skipPreflight: false,
      preflightCommitment: 'confirmed',
      maxRetries: 5,
    })
  } catch (e) {
    return { state: 'failed', message: `the node refused the transaction: ${(e as Error).message}` }
  }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const st = (await connection.getSignatureStatuses([signature])).value[0]
    if (st?.err)
      return { state: 'failed', signature, message: `the transaction failed on chain: ${JSON.stringify(st.err)}` }
    if (st && (st.confirmationStatus === 'confirmed' || st.confirmationStatus === 'finalized'))
      return { state: 'ok', signature }
    await new Promise((r) => setTimeout(r, pollMs))
  }
  return { state: 'pending', signature }
}
