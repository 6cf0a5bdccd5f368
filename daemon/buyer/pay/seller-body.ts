import { endToEnd } from '../../egress/headers.js'

/** The most of a seller's answer body the platform reads and hands back (the pay answer carries it in JSON). */
export const MAX_SELLER_BODY = 4 * 1024 * 1024
/** The most of a 402 body read for x402 v1 terms; terms are a few hundred bytes. */
export const MAX_TERMS_BODY = 64 * 1024

/**
 * Reads at most `max` bytes of a response body and cancels the rest, so a seller streaming without
 * end cannot hold the platform's memory or the agent's request. `truncated` says the cut happened.
 */
export async function readBounded(res: Response, max: number): Promise<{ buf: Buffer; truncated: boolean }> {
  if (!res.body) return { buf: Buffer.alloc(0), truncated: false }
  const reader = res.body.getReader()
  const chunks: Buffer[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { buf: Buffer.concat(chunks), truncated: false }
    const room = max - size
    if (value.byteLength > room) {
      chunks.push(Buffer.from(value.subarray(0, room)))
      await reader.cancel().catch(() => {})
      return { buf: Buffer.concat(chunks), truncated: true }
    }
    chunks.push(Buffer.from(value))
    size += value.byteLength
  }
}

/**
 * The seller's answer as the pay route returns it: text as utf8, anything else base64; its end-to-end headers
 * (egress/headers.ts).
 */
export async function passThrough(res: Response) {
  const { buf, truncated } = await readBounded(res, MAX_SELLER_BODY)
  const type = res.headers.get('content-type') ?? ''
  const text = /^(text\/|application\/(json|xml|javascript)|[^;]*\+json)/i.test(type) || type === ''
  const headers = endToEnd(res.headers)
  return {
    status: res.status,
    headers,
    body: text ? buf.toString('utf8') : buf.toString('base64'),
    bodyEncoding: (text ? 'utf8' : 'base64') as 'utf8' | 'base64',
    ...(truncated ? { bodyTruncated: true as const } : {}),
  }
}
