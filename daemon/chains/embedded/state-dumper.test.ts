import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'
import { networks } from '../../../src/networks/registry.js'
import { useAnvilChain } from '../../../test/helpers/anvil-chain.js'
import { stateHead } from '../../../test/helpers/state-file.js'
import { startAnvil } from './anvil.js'
import { keepStateDumped } from './state-dumper.js'

const dir = mkdtempSync(join(tmpdir(), 'parx-dumper-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('the embedded chain state, written by parx', () => {
  const anvil = useAnvilChain()
  const head = async () => Number(await anvil.rpc<string>('eth_blockNumber'))

  it('is written when the chain goes quiet, within a bound under constant load, and not rewritten while nothing changes', async () => {
    const path = join(dir, 'quiet.json')
    const writes: number[] = []
    const written = (atLeast: number) =>
      new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`no write holding block ${atLeast} (writes: ${writes.join(',')})`)),
          5_000,
        )
        const look = setInterval(() => {
          if (writes.some((b) => b >= atLeast)) clearTimeout(deadline), clearInterval(look), resolve()
        }, 10)
      })
    const requests = new Int32Array(new SharedArrayBuffer(8))
    const dumper = keepStateDumped({
      rpcUrl: anvil.rpcUrl,
      statePath: path,
      requests,
      pollMs: 20,
      quietMs: 100,
      maxDelayMs: 800,
      backstopMs: 150,
      onWrite: (b) => writes.push(b),
    })
    try {
      // The start counts as a change (code placed with anvil_setCode mines no block).
      await written(0)
      await anvil.rpc('evm_mine')
      const mined = await head()
      await written(mined)
      expect(stateHead(path)).toBe(mined)

      // Not quiet while the daemon keeps asking the chain (reads mine no block): written once it stops.
      await anvil.rpc('evm_mine')
      const busy = await head()
      for (const end = Date.now() + 500; Date.now() < end; await sleep(20)) Atomics.add(requests, 0, 1)
      expect(writes.some((b) => b >= busy)).toBe(false)
      await written(busy)

      // Idle: read again (the backstop) but the same state is not written again.
      const count = writes.length
      const mtime = statSync(path).mtimeMs
      await sleep(600)
      expect(writes.length).toBe(count)
      expect(statSync(path).mtimeMs).toBe(mtime)

      // A change without a block (anvil_setBalance) is written by the backstop read.
      const rich = '0x00000000000000000000000000000000000000aa'
      await anvil.rpc('anvil_setBalance', [rich, '0x1234'])
      for (const end = Date.now() + 3_000; Date.now() < end && !readFileSync(path, 'utf8').includes(rich.slice(2)); )
        await sleep(20)
      expect(JSON.parse(readFileSync(path, 'utf8')).accounts[rich]?.balance).toBe('0x1234')

      // A block every 30 ms is never quiet for 100 ms: written anyway, within maxDelayMs.
      const from = writes.length
      const start = await head()
      for (const end = Date.now() + 1_500; Date.now() < end; ) {
        await anvil.rpc('evm_mine')
        await sleep(30)
      }
      expect(writes.slice(from).some((b) => b > start)).toBe(true)
    } finally {
      await dumper.stop()
    }
  })
})

describe('the embedded chain state of a quiet daemon', () => {
  const anvil = useAnvilChain()

  it('asks the chain nothing while the daemon is quiet, and wakes on its next request', async () => {
    // A counting proxy in front of anvil: what the dumper sends the chain.
    const { createServer } = await import('node:http')
    const seen: string[] = []
    const proxy = createServer(async (req, res) => {
      let body = ''
      for await (const c of req) body += c
      seen.push((JSON.parse(body) as { method: string }).method)
      const r = await fetch(anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      res.setHeader('content-type', 'application/json')
      res.end(await r.text())
    })
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`
    const requests = new Int32Array(new SharedArrayBuffer(8))
    const writes: number[] = []
    const dumper = keepStateDumped({
      rpcUrl: url,
      statePath: join(dir, 'idle.json'),
      requests,
      pollMs: 20,
      quietMs: 50,
      backstopMs: 600_000,
      idleLookMs: 600_000,
      onWrite: (b) => writes.push(b),
    })
    try {
      while (writes.length === 0) await sleep(10)
      await sleep(200)
      // Quiet now: over the next half second (25 rounds of pollMs) not one call.
      const before = seen.length
      await sleep(500)
      expect(seen.slice(before)).toEqual([])
      // The daemon sends the chain a transaction (its transport counts and notifies): the dumper looks again and writes.
      await anvil.rpc('evm_mine')
      Atomics.add(requests, 0, 1)
      Atomics.notify(requests, 0)
      const mined = await head()
      while (!writes.some((b) => b >= mined)) await sleep(10)
      expect(seen.length).toBeGreaterThan(before)
    } finally {
      await dumper.stop()
      proxy.close()
    }
  })
  const head = async () => Number(await anvil.rpc<string>('eth_blockNumber'))
})

describe('the embedded chain state file stays bounded', () => {
  const anvil = useAnvilChain()

  it('keeps the last keepBlocks blocks and their transactions, and anvil starts from it at the same head', async () => {
    const path = join(dir, 'bounded.json')
    const from = '0x00000000000000000000000000000000000000aa'
    await anvil.rpc('anvil_setBalance', [from, '0xde0b6b3a7640000'])
    await anvil.rpc('anvil_impersonateAccount', [from])
    // anvil answers eth_sendTransaction before its automined block is in: wait for the receipt, so
    // the head read below is the block the transfer landed in (it read one block short under load).
    const send = async () => {
      const hash = await anvil.rpc<string>('eth_sendTransaction', [
        { from, to: '0x00000000000000000000000000000000000000bb', value: '0x1' },
      ])
      for (;;) {
        const receipt = await anvil.rpc<{ blockNumber: string } | null>('eth_getTransactionReceipt', [hash])
        if (receipt) return Number(receipt.blockNumber)
        await sleep(5)
      }
    }
    await send()
    await anvil.rpc('anvil_mine', ['0x12c'])
    const landed = await send()
    const mined = Number(await anvil.rpc<string>('eth_blockNumber'))
    expect(mined).toBe(landed)
    const requests = new Int32Array(new SharedArrayBuffer(8))
    let stop = async () => {}
    const written = new Promise<number>((resolve, reject) => {
      stop = keepStateDumped({
        rpcUrl: anvil.rpcUrl,
        statePath: path,
        requests,
        pollMs: 20,
        quietMs: 50,
        keepBlocks: 100,
        onWrite: resolve,
        onError: reject,
      }).stop
    })
    try {
      expect(await written).toBe(mined)
    } finally {
      await stop()
    }
    const state = JSON.parse(readFileSync(path, 'utf8')) as {
      blocks: { header: { number: string } }[]
      transactions: { block_number: number }[]
    }
    const numbers = state.blocks.map((b) => Number(b.header.number))
    expect(numbers.length).toBe(100)
    expect(Math.min(...numbers)).toBe(mined - 99)
    expect(state.transactions.map((t) => t.block_number)).toEqual([mined])

    const spec = networks['local-base']!
    const again = await startAnvil({ chainId: spec.chainId!, statePath: path })
    try {
      const call = async <T>(method: string, params: unknown[] = []) =>
        (
          (await (
            await fetch(again.rpcUrl, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
            })
          ).json()) as { result: T }
        ).result
      expect(Number(await call<string>('eth_blockNumber'))).toBe(mined)
      expect(await call<string>('eth_getBalance', ['0x00000000000000000000000000000000000000bb', 'latest'])).toBe('0x2')
      await call('evm_mine')
      expect(Number(await call<string>('eth_blockNumber'))).toBe(mined + 1)
    } finally {
      await again.stop()
    }
  })
})

describe('the state dumper built as tsx builds it (keepNames: bin/run-ts.js runs the benches)', () => {
  const anvil = useAnvilChain()

  it('runs its worker and writes the state', async () => {
    // keepNames wraps the worker function's inner functions in a module-level __name helper.
    const out = join(dir, 'state-dumper.keep-names.mjs')
    await build({
      entryPoints: [new URL('./state-dumper.ts', import.meta.url).pathname],
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      keepNames: true,
      logLevel: 'silent',
    })
    expect(readFileSync(out, 'utf8')).toContain('__name(')
    const built = (await import(pathToFileURL(out).href)) as typeof import('./state-dumper.js')
    const path = join(dir, 'keep-names.json')
    const requests = new Int32Array(new SharedArrayBuffer(8))
    let stop = async () => {}
    const first = new Promise<number>((resolve, reject) => {
      stop = built.keepStateDumped({
        rpcUrl: anvil.rpcUrl,
        statePath: path,
        requests,
        pollMs: 20,
        quietMs: 50,
        onWrite: resolve,
        onError: reject,
      }).stop
    })
    try {
      expect(await first).toBeGreaterThanOrEqual(0)
      expect(stateHead(path)).toBeGreaterThanOrEqual(0)
    } finally {
      await stop()
    }
  })
})

describe.runIf(process.platform === 'linux')('an embedded chain with a state file', () => {
  const spec = networks['local-base']!
  const path = join(dir, 'chain.json')
  const rpc = async <T>(url: string, method: string, params: unknown[] = []) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await res.json()) as { result: T }).result
  }

  it('keeps what was written before a kill -9, and everything up to a clean stop', async () => {
    let a = await startAnvil({ chainId: spec.chainId!, statePath: path })
    await rpc(a.rpcUrl, 'anvil_mine', ['0x3'])
    for (const end = Date.now() + 5_000; Date.now() < end; await sleep(25)) {
      try {
        if (stateHead(path) === 3) break
      } catch {}
    }
    process.kill(a.pid, 'SIGKILL')
    await a.stop()
    a = await startAnvil({ chainId: spec.chainId!, statePath: path })
    expect(Number(await rpc<string>(a.rpcUrl, 'eth_blockNumber'))).toBe(3)

    // Stopped at once after a block, before any quiet moment: anvil's exit dump holds it.
    await rpc(a.rpcUrl, 'evm_mine')
    await a.stop()
    expect(stateHead(path)).toBe(4)
    a = await startAnvil({ chainId: spec.chainId!, statePath: path })
    try {
      expect(Number(await rpc<string>(a.rpcUrl, 'eth_blockNumber'))).toBe(4)
    } finally {
      await a.stop()
    }
  })
})
