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
