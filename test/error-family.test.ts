import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RpcCode, RpcError } from '../daemon/solana-rpc/rpc-error.js'
import { SolanaTxError } from '../daemon/solana-rpc/tx-error.js'
import { RemoteAttestorError, remoteAttestor } from '../daemon/xchain/attestors/remote.js'
import { BaseError } from '../src/errors/base.js'
import { errorCodes } from '../src/errors/codes.js'
import { ApiError, UnreachableError } from '../src/sdk/http-errors.js'
import { SwapNotIncludedError } from '../src/sdk/swap/client.js'
import { signPayment } from '../src/sdk/x402/client/payer.js'
import { facilitatorClient } from '../src/sdk/x402/seller/facilitator-client.js'
import { LockFailedError, OrderWaitTimeoutError } from '../src/sdk/xchain/client.js'

/** Issue 42 item 3: one error family. Every error a user, an SDK caller or an RPC client can meet is a BaseError with a listed code. */
const root = new URL('..', import.meta.url).pathname

function productFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(root, dir, name)
    if (statSync(path).isDirectory())
      return name === 'node_modules' || name === 'artifacts' ? [] : productFiles(relative(root, path))
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [relative(root, path)] : []
  })
}
const product = [...productFiles('src'), ...productFiles('daemon')].map((file) => ({
  file,
  text: readFileSync(join(root, file), 'utf8'),
}))

describe('one error family', () => {
  it('no product class extends Error but BaseError itself, and there is one ApiError', () => {
    const direct = product.flatMap(({ file, text }) =>
      [...text.matchAll(/class (\w+)(?:<[^>]*>)? extends Error\b/g)].map((m) => `${file}: ${m[1]}`),
    )
    expect(direct).toEqual(['src/errors/base.ts: BaseError'])
    const apiErrors = product.flatMap(({ file, text }) => (/class ApiError\b/.test(text) ? [file] : []))
    expect(apiErrors).toEqual(['src/sdk/http-errors.ts'])
  })

  it('has no bare `new Error(` in product code, but where a line above says why (biome-ignore lint/plugin)', () => {
    const bare = product.flatMap(({ file, text }) => {
      const lines = text.split('\n')
      return lines.flatMap((line, i) =>
        line.includes('new Error(') && !/^\s*\/\/ biome-ignore lint\/plugin: \S/.test(lines[i - 1] ?? '')
          ? [`${file}:${i + 1}`]
          : [],
      )
    })
    expect(bare).toEqual([])
  })

  it("the SDK's, the attestor's and the embedded Solana's errors are BaseErrors with listed codes", () => {
    const status = { orderId: 'o1', status: 'opened', stage: null } as never
    const errors: [BaseError<string>, string][] = [
      [new ApiError(409, 'PRICE_ABOVE_MAX', 'too dear'), 'PRICE_ABOVE_MAX'],
      [new UnreachableError('http://127.0.0.1:9', new Error('ECONNREFUSED')), 'DAEMON_UNREACHABLE'],
      [new OrderWaitTimeoutError(status, 1000), 'WAIT_TIMEOUT'],
      [new LockFailedError('o1', '0xabc', 'reverted'), 'XCHAIN_LOCK_FAILED'],
      [new SwapNotIncludedError({ hash: '0xabc', status: 'failed' } as never), 'SWAP_NOT_INCLUDED'],
      [new RemoteAttestorError('down'), 'ATTESTOR_UNAVAILABLE'],
      [new RpcError(RpcCode.INVALID_PARAMS, 'bad'), 'CHAIN_RPC_ERROR'],
      [new SolanaTxError('signature', 'Transaction signature verification failure'), 'CHAIN_RPC_ERROR'],
    ]
    for (const [e, code] of errors) {
      expect(e, e.name).toBeInstanceOf(BaseError)
      expect(e.code).toBe(code)
      expect(code in errorCodes).toBe(true)
    }
    // The JSON-RPC wire error is unchanged: its numeric code, not parx's.
    expect(new RpcError(RpcCode.INVALID_PARAMS, 'bad', { x: 1 }).toWire()).toEqual({
      code: -32602,
      message: 'bad',
      data: { x: 1 },
    })
    expect(new ApiError(409, 'PRICE_ABOVE_MAX', 'too dear').status).toBe(409)
  })

  it('an SDK payer without a key for the network refuses with SELLER_METHOD_UNSUPPORTED', async () => {
    const r = {
      scheme: 'exact',
      network: 'eip155:8453',
      asset: '0x0000000000000000000000000000000000000001',
      amount: '1',
      payTo: '0x0000000000000000000000000000000000000002',
      maxTimeoutSeconds: 60,
      extra: { name: 'X', version: '1' },
    }
    const e = await signPayment({}, r as never).catch((e: unknown) => e)
    expect(e).toBeInstanceOf(BaseError)
    expect((e as BaseError).code).toBe('SELLER_METHOD_UNSUPPORTED')
  })

  describe('against a server that answers garbage', () => {
    let server: Server
    let url: string
    beforeAll(async () => {
      server = createServer((_req, res) =>
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>'),
      )
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

    it("a facilitator that does not answer in x402's shape is FACILITATOR_UNAVAILABLE", async () => {
      const f = facilitatorClient({ url })
      for (const call of [() => f.verify({}), () => f.settle({}), () => f.supported(), () => f.status('0x01')]) {
        const e = await call().catch((e: unknown) => e)
        expect(e).toBeInstanceOf(BaseError)
        expect((e as BaseError).code).toBe('FACILITATOR_UNAVAILABLE')
      }
    })

    it('a remote attestor that answers an error is ATTESTOR_UNAVAILABLE', async () => {
      const e = await remoteAttestor({ index: 0, url })
        .ping()
        .catch((e: unknown) => e)
      expect(e).toBeInstanceOf(RemoteAttestorError)
      expect((e as BaseError).code).toBe('ATTESTOR_UNAVAILABLE')
    })
  })
})
