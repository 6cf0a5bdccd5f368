import type { IncomingMessage } from 'node:http'
import { BaseError } from '../../src/errors/index.js'

/**
 * Past the cap, this much more of a body is still read off the wire and dropped, for at most
 * DRAIN_MS, before the 413 is sent: a client that writes its whole body before it reads (most
 * simple clients) then finds the answer instead of a connection reset. A body larger than cap +
 * DRAIN_BYTES, declared or streamed, is answered at once: reading it would only cost bandwidth.
 */
export const DRAIN_BYTES = 4 * 1024 * 1024
export const DRAIN_MS = 1_000

export const tooLarge = (max: number) =>
  new BaseError('PAYLOAD_TOO_LARGE', `the request body is larger than ${max} bytes`)

/** The body's declared length (Content-Length), or undefined when it is streamed (chunked) or absent. */
export function declaredLength(
  headers: IncomingMessage['headers'] | { get(name: string): string | null | undefined },
): number | undefined {
  const raw =
    'get' in headers && typeof headers.get === 'function'
      ? headers.get('content-length')
      : (headers as IncomingMessage['headers'])['content-length']
  if (raw === undefined || raw === null || raw === '') return undefined
  const n = Number(raw)
  return Number.isFinite(n) ? n : undefined
}

/**
 * A request body, held in memory only up to `maxBytes` (never more, whatever the Content-Length
 * says or however long a chunked body runs). Over the cap: PAYLOAD_TOO_LARGE (413), after the
 * bounded drain above. The request stream is never destroyed here (that would reset the socket
 * before the 413 is written); the API server answers every 413, and every answer sent while the
 * body is still arriving, with `Connection: close` and a lingering close bounded by the same
 * DRAIN_BYTES and DRAIN_MS (daemon/http/api-server.ts).
 */
export function readBody(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = declaredLength(incoming.headers)
  if (declared !== undefined && declared > maxBytes + DRAIN_BYTES) return Promise.reject(tooLarge(maxBytes))
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0))
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | undefined = []
    let size = 0
    let timer: NodeJS.Timeout | undefined
    const cleanup = () => {
      clearTimeout(timer)
      incoming.off('data', onData)
      incoming.off('end', onEnd)
      incoming.off('error', onError)
      incoming.off('close', onClose)
    }
    const refuse = () => {
      cleanup()
      reject(tooLarge(maxBytes))
    }
    // From here on nothing is kept: the bytes are counted and dropped until the body ends or a bound is hit.
    const overflow = () => {
      chunks = undefined
      timer = setTimeout(refuse, DRAIN_MS)
      timer.unref()
    }
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (chunks && size <= maxBytes) return void chunks.push(chunk)
      if (chunks) overflow()
      if (size > maxBytes + DRAIN_BYTES) refuse()
    }
    const onEnd = () => {
      cleanup()
      if (!chunks) return reject(tooLarge(maxBytes))
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    }
    const onError = (e: Error) => {
      cleanup()
      reject(e)
    }
    const onClose = () => {
      cleanup()
      reject(new BaseError('BAD_REQUEST', 'the connection closed before the whole request body arrived'))
    }
    if (declared !== undefined && declared > maxBytes) overflow()
    incoming.on('data', onData)
    incoming.on('end', onEnd)
    incoming.on('error', onError)
    incoming.on('close', onClose)
  })
}

/**
 * The same cap on a fetch Request's body (the app called in-process, `app.request`, has no Node
 * request): read chunk by chunk, cancelled past the cap.
 */
export async function readWebBody(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = declaredLength(req.headers)
  if (declared !== undefined && declared > maxBytes) throw tooLarge(maxBytes)
  if (!req.body) return Buffer.alloc(0)
  const reader = req.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, size)
}
