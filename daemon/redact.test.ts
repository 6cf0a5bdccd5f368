import { HttpRequestError, RpcRequestError } from 'viem'
import { describe, expect, it } from 'vitest'
import { publicRpcUrl, redactText, registerSecretUrl } from './redact.js'

describe('redactText', () => {
  const url = 'https://user:SECRETPASS@rpc.example/v2/SECRETKEY123?apikey=SECRETQ'
  registerSecretUrl(url)

  it("removes viem's URL and request body lines and keeps what the caller needs", () => {
    const e = new HttpRequestError({ url, body: { method: 'eth_call', params: [] }, details: 'fetch failed' })
    const text = redactText(e.message)
    expect(e.message).toContain('SECRETKEY123')
    expect(text).not.toMatch(/SECRET|Request body|URL:|viem@/)
    expect(text).toContain('HTTP request failed.')
    expect(text).toContain('Details: fetch failed')
  })

  it('keeps a revert reason', () => {
    const e = new RpcRequestError({
      url,
      body: { method: 'eth_estimateGas' },
      error: { code: 3, message: 'execution reverted: ERC20: transfer amount exceeds balance' },
    })
    const text = redactText(e.message)
    expect(text).toContain('ERC20: transfer amount exceeds balance')
    expect(text).not.toContain('SECRET')
  })

  it("removes a registered credential anywhere, and any URL's userinfo; other URLs stay whole", () => {
    expect(redactText('the provider says: invalid key SECRETKEY123 (SECRETQ)')).toBe(
      'the provider says: invalid key [redacted] ([redacted])',
    )
    expect(redactText('GET https://bob:hunter2hunter@seller.example/a?b=1 failed.')).toBe(
      'GET https://seller.example/a?b=1 failed.',
    )
    expect(redactText('the seller at https://seller.example/x/y?z=1 answered 500')).toBe(
      'the seller at https://seller.example/x/y?z=1 answered 500',
    )
  })

  it('leaves a text with nothing to remove exactly as it was', () => {
    const text = '  two\n\n\n\nlines  '
    expect(redactText(text)).toBe(text)
  })
})

describe('publicRpcUrl', () => {
  it('shows only URLs where nothing can hold a credential', () => {
    expect(publicRpcUrl('http://127.0.0.1:8545/')).toBe('http://127.0.0.1:8545/')
    expect(publicRpcUrl('https://node.example')).toBe('https://node.example')
    expect(publicRpcUrl('https://base-sepolia.g.alchemy.com/v2/KEY')).toBeUndefined()
    expect(publicRpcUrl('https://rpc.example/?apikey=KEY')).toBeUndefined()
    expect(publicRpcUrl('https://user:pass@rpc.example/')).toBeUndefined()
    expect(publicRpcUrl('not a url')).toBeUndefined()
  })
})
