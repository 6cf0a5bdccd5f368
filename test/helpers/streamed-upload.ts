import http from 'node:http'

export type UploadAnswer = { status: number; headers: http.IncomingHttpHeaders; body: any; sent: number }

export type UploadOptions = {
  /** Send a Content-Length of `total` (default: chunked). */
  declare?: boolean
  contentType?: string
  /** Bytes per write (the upload is generated as it is written, never held). */
  chunkBytes?: number
  /** Send the headers only and wait for the answer (a declared length refused up front). */
  holdBody?: boolean
}

/**
 * POSTs `total` bytes to 127.0.0.1:`port` on `agent`, generated as they are written, chunked or
 * with a declared length; like a well-behaved client it stops writing once the answer arrives and
 * abandons the rest, as a client that read a 413 does. `sent` is how much it had written.
 */
export function streamedUpload(
  agent: http.Agent,
  target: { port: number; path: string },
  total: number,
  opts: UploadOptions = {},
): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': opts.contentType ?? 'application/octet-stream' }
    if (opts.declare) headers['content-length'] = total
    const req = http.request({
      host: '127.0.0.1',
      port: target.port,
      path: target.path,
      method: 'POST',
      agent,
      headers,
    })
    let sent = 0
    let answered = false
    const chunk = Buffer.alloc(opts.chunkBytes ?? 64 * 1024, 0x20)
    const pump = () => {
      while (!answered && sent < total) {
        const n = Math.min(chunk.length, total - sent)
        sent += n
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump)
      }
      if (!answered) req.end()
    }
    req.on('response', (res) => {
      answered = true
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => {
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {}
        resolve({ status: res.statusCode!, headers: res.headers, body, sent })
        if (sent < total) req.destroy()
      })
    })
    req.on('error', (e) => (answered ? undefined : reject(e)))
    if (opts.holdBody) req.flushHeaders()
    else pump()
  })
}
