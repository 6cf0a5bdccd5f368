import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { CliError } from '../errors.js'

export type BoundedGet = { status: number; contentType: string; text: string }

/**
 * One GET whose answer is read up to `maxBytes` and within `timeoutMs`, for a server the user
 * named (a facilitator's discovery listing): a listing that never ends, or is larger than any
 * listing page should be, is cut off rather than read into memory. A redirect is refused, never
 * followed: the server named is the one read, and a listing cannot send the CLI on to another host
 * (an internal address, a scheme downgrade). node:http, not undici or fetch, for the CLI's
 * start-up time. Rejects with a plain Error saying what went wrong.
 */
export function getBounded(
  url: URL,
  opts: { maxBytes: number; timeoutMs: number; headers?: Record<string, string> },
): Promise<BoundedGet> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolvePromise, rejectPromise) => {
    // The whole exchange, not each idle gap: a server dripping a byte a second is cut off too.
    const timer = setTimeout(
      () => req.destroy(new CliError('DISCOVERY_UNREADABLE', `no whole answer within ${opts.timeoutMs / 1000} s`)),
      opts.timeoutMs,
    )
    const resolve = (v: BoundedGet) => (clearTimeout(timer), resolvePromise(v))
    const reject = (e: Error) => (clearTimeout(timer), rejectPromise(e))
    const req = request(url, { method: 'GET', headers: { accept: 'application/json', ...opts.headers } }, (res) => {
      const status = res.statusCode ?? 0
      if (status >= 300 && status < 400) {
        req.destroy()
        const to = res.headers.location
        return reject(
          new CliError(
            'DISCOVERY_UNREADABLE',
            `a redirect (HTTP ${status}${to ? ` to ${to}` : ''}); ` +
              `redirects are not followed: give the listing's own URL`,
          ),
        )
      }
      const declared = Number(res.headers['content-length'] ?? NaN)
      if (declared > opts.maxBytes) {
        req.destroy()
        return reject(
          new CliError(
            'DISCOVERY_UNREADABLE',
            `the answer declares ${declared} bytes, more than the ${opts.maxBytes} a listing page may have`,
          ),
        )
      }
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        size += c.length
        if (size > opts.maxBytes) {
          req.destroy()
          reject(
            new CliError(
              'DISCOVERY_UNREADABLE',
              `the answer is larger than the ${opts.maxBytes} bytes a listing page may have`,
            ),
          )
          return
        }
        chunks.push(c)
      })
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}
