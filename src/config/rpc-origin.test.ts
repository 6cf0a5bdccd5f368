import { describe, expect, it } from 'vitest'
import { rpcOrigin, rpcOrigins } from './rpc-origin.js'

describe('rpcOrigin', () => {
  it('keeps scheme, host and port; drops the userinfo, path, query and fragment a provider key sits in', () => {
    expect(rpcOrigin('https://user:pw@base-sepolia.g.alchemy.com/v2/KEY?apikey=Q#f')).toBe(
      'https://base-sepolia.g.alchemy.com',
    )
    expect(rpcOrigin('wss://rpc.example:8546/ws/KEY')).toBe('wss://rpc.example:8546')
    expect(rpcOrigin('http://[::1]:8545/')).toBe('http://[::1]:8545')
    expect(rpcOrigin('not a url KEY')).toBe('[not a URL]')
  })

  it("leaves the embedded chains' URLs as they are (usable as printed)", () => {
    expect(rpcOrigins({ 'local-base': 'http://127.0.0.1:8421', 'local-solana': 'http://127.0.0.1:8423' })).toEqual({
      'local-base': 'http://127.0.0.1:8421',
      'local-solana': 'http://127.0.0.1:8423',
    })
  })
})
