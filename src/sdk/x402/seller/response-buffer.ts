import type { ServerResponse } from 'node:http'

type Method = 'writeHead' | 'write' | 'end' | 'flushHeaders'

/**
 * Holds a handler's response back until the payment is settled: writes are recorded, not sent,
 * and `ended` gives the status the handler chose. `release` sends everything as the handler wrote
 * it (after headers added meanwhile); `discard` drops it so another answer can be written instead.
 */
export function bufferResponse(res: ServerResponse) {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end, flushHeaders: res.flushHeaders }
  const calls: Array<[Method, unknown[]]> = []
  let headStatus: number | undefined
  let done!: (status: number) => void
  const ended = new Promise<number>((resolve) => (done = resolve))
  const hold = (m: Method, result: (args: unknown[]) => unknown) =>
    function (this: ServerResponse, ...args: unknown[]) {
      calls.push([m, args])
      return result(args)
    }
  Object.assign(res, {
    writeHead: hold('writeHead', (args) => {
      if (typeof args[0] === 'number') headStatus = args[0]
      return res
    }),
    write: hold('write', () => true),
    end: hold('end', () => {
      done(headStatus ?? res.statusCode)
      return res
    }),
    flushHeaders: hold('flushHeaders', () => undefined),
  })
  const restore = () => Object.assign(res, original)
  return {
    ended,
    /**
     * The answer as it will go out: the status, the headers set so far with writeHead's merged in,
     * and the body written (what a repeat of the same payment is answered: ./answers/).
     */
    recorded(): { status: number; headers: Record<string, string | string[]>; body: Buffer } {
      const headers: Record<string, string | string[]> = {}
      for (const [k, v] of Object.entries(res.getHeaders()))
        if (v !== undefined) headers[k] = Array.isArray(v) ? v : String(v)
      const chunks: Buffer[] = []
      for (const [m, args] of calls) {
        if (m === 'writeHead') {
          const h = args.find((a, i) => i > 0 && a !== null && typeof a === 'object')
          if (Array.isArray(h))
            for (let i = 0; i + 1 < h.length; i += 2) headers[String(h[i]).toLowerCase()] = String(h[i + 1])
          else if (h)
            for (const [k, v] of Object.entries(h))
              if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.map(String) : String(v)
        }
        if (m === 'write' || m === 'end') {
          const [chunk, enc] = args
          if (typeof chunk === 'string')
            chunks.push(Buffer.from(chunk, typeof enc === 'string' ? (enc as BufferEncoding) : 'utf8'))
          else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk))
        }
      }
      return { status: headStatus ?? res.statusCode, headers, body: Buffer.concat(chunks) }
    },
    release() {
      restore()
      for (const [m, args] of calls.splice(0)) (original[m] as (...a: unknown[]) => unknown).apply(res, args)
    },
    discard() {
      restore()
      calls.length = 0
      for (const name of res.getHeaderNames()) res.removeHeader(name)
    },
  }
}
