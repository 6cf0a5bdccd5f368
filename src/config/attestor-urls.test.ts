import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from './load.js'
import { packageRoot } from './package-root.js'

describe('PARX_XCHAIN_ATTESTOR_URLS', () => {
  it('is 0-based like `parx attestor --index`, and the docs/cross-chain.md example and the config comment say so', () => {
    const readme = readFileSync(join(packageRoot(), 'docs/cross-chain.md'), 'utf8')
    const example = /`PARX_XCHAIN_ATTESTOR_URLS` \(`([^`]+)`\)/.exec(readme)?.[1]
    expect(example).toMatch(/^0=http:\/\/host:port,1=/)
    expect(readme).toContain('`xchain.attestorUrls` (`{ "0": url }`)')
    const schema = readFileSync(join(packageRoot(), 'src/config/schema.ts'), 'utf8')
    expect(schema).toContain('PARX_XCHAIN_ATTESTOR_URLS="0=http://host:port,1=...')
    const c = loadConfig({
      env: { PARX_XCHAIN_ATTESTOR_URLS: '0=http://127.0.0.1:9100,2=http://127.0.0.1:9102' },
      file: {},
    })
    expect(c.xchain.attestorUrls).toEqual({ 0: 'http://127.0.0.1:9100', 2: 'http://127.0.0.1:9102' })
    expect(() => loadConfig({ env: { PARX_XCHAIN_ATTESTOR_URLS: '3=http://127.0.0.1:9103' }, file: {} })).toThrow(
      /attestor indexes are 0, 1 and 2/,
    )
  })
})
