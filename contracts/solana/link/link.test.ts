import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Keypair, TransactionInstruction } from '@solana/web3.js'
import { describe, expect, it } from 'vitest'
import { CLANG, CLANG_FLAGS, hasClang } from '../compile.js'
import { SettlementSvm } from '../testing/svm.js'
import { LinkError, linkProgram, MM_PROGRAM_START } from './link.js'
import { planLayout, writeSharedObject } from './shared-object.js'

const clang = hasClang()

function compile(source: string): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'parx-link-test-'))
  try {
    writeFileSync(join(dir, 'p.c'), source)
    execFileSync(CLANG, [...CLANG_FLAGS, '-c', 'p.c', '-o', 'p.o'], { cwd: dir, stdio: 'pipe' })
    return readFileSync(join(dir, 'p.o'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Just enough of an ELF reader to check what the linker wrote. */
function inspect(so: Uint8Array) {
  const v = new DataView(so.buffer, so.byteOffset, so.byteLength)
  const shoff = Number(v.getBigUint64(40, true))
  const shnum = v.getUint16(60, true)
  const shstr = Number(v.getBigUint64(shoff + v.getUint16(62, true) * 64 + 24, true))
  const name = (at: number) => {
    let end = at
    while (so[end] !== 0) end++
    return new TextDecoder().decode(so.subarray(at, end))
  }
  const sections = Array.from({ length: shnum }, (_, i) => {
    const h = shoff + i * 64
    return {
      name: name(shstr + v.getUint32(h, true)),
      addr: Number(v.getBigUint64(h + 16, true)),
      offset: Number(v.getBigUint64(h + 24, true)),
      size: Number(v.getBigUint64(h + 32, true)),
    }
  })
  const sec = (n: string) => sections.find((s) => s.name === n)!
  const dynsym = sec('.dynsym')
  const dynstr = sec('.dynstr')
  const rel = sections.find((s) => s.name === '.rel.dyn')
  const symbols = Array.from({ length: dynsym.size / 24 }, (_, i) =>
    name(dynstr.offset + v.getUint32(dynsym.offset + i * 24, true)),
  )
  const relocations = rel
    ? Array.from({ length: rel.size / 16 }, (_, i) => {
        const info = v.getBigUint64(rel.offset + i * 16 + 8, true)
        return {
          offset: Number(v.getBigUint64(rel.offset + i * 16, true)),
          type: Number(info & 0xffffffffn),
          symbol: symbols[Number(info >> 32n)],
        }
      })
    : []
  return {
    type: v.getUint16(16, true),
    machine: v.getUint16(18, true),
    flags: v.getUint32(48, true),
    entry: Number(v.getBigUint64(24, true)),
    sections,
    sec,
    relocations,
    insn: (at: number) => ({ op: so[at]!, src: so[at + 1]! >> 4, imm: v.getInt32(at + 4, true) }),
    v,
  }
}

describe('shared-object writer', () => {
  it('writes a program the loader accepts and runs, without clang', () => {
    // mov64 r0, 0; exit
    const text = Uint8Array.from([0xb7, 0, 0, 0, 0, 0, 0, 0, 0x95, 0, 0, 0, 0, 0, 0, 0])
    const so = writeSharedObject({
      layout: planLayout(text.length, 0, 1),
      text,
      rodata: new Uint8Array(),
      entry: 0,
      syscallSites: [],
    })
    const elf = inspect(so)
    expect([elf.type, elf.machine, elf.flags]).toEqual([3, 247, 0])
    for (const s of elf.sections) expect(s.addr).toBe(s.name === '' ? 0 : s.offset)
    const s = new SettlementSvm()
    const program = Keypair.generate().publicKey
    s.svm.addProgram(program.toBase58() as never, so)
    const payer = Keypair.generate()
    s.airdrop(payer.publicKey)
    const sent = s.send([new TransactionInstruction({ programId: program, keys: [], data: Buffer.alloc(0) })], [payer])
    expect(sent.err).toBeNull()
  })

  it('names each syscall once in .dynsym and relocates every call site', () => {
    const call = [0x85, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]
    const text = Uint8Array.from([...call, ...call, ...call, 0x95, 0, 0, 0, 0, 0, 0, 0])
    const so = writeSharedObject({
      layout: planLayout(text.length, 0, 1),
      text,
      rodata: new Uint8Array(),
      entry: 0,
      syscallSites: [
        { offset: 16, name: 'sol_log_' },
        { offset: 0, name: 'sol_sha256' },
        { offset: 8, name: 'sol_log_' },
      ],
    })
    const elf = inspect(so)
    const textAt = elf.sec('.text').offset
    expect(elf.relocations).toEqual([
      { offset: textAt, type: 10, symbol: 'sol_sha256' },
      { offset: textAt + 8, type: 10, symbol: 'sol_log_' },
      { offset: textAt + 16, type: 10, symbol: 'sol_log_' },
    ])
  })
})

describe.skipIf(!clang)('linkProgram (clang-19 objects)', () => {
  it('patches lddw to absolute rodata addresses, keeps internal calls pc-relative and syscalls as call -1', () => {
    const so = linkProgram(
      compile(`
      void sol_log_(const char *, unsigned long long);
      static const char greeting[] = "hello from rodata";
      __attribute__((noinline)) static unsigned long long twice(unsigned long long x) { return x * 2; }
      unsigned long long entrypoint(const unsigned char *input) {
        sol_log_(greeting, sizeof(greeting) - 1);
        return twice(input[0]) + twice(input[1] + 3);
      }`),
    )
    const elf = inspect(so)
    const text = elf.sec('.text')
    const rodata = elf.sec('.rodata')
    expect(elf.entry).toBeGreaterThanOrEqual(text.addr)
    const at = Buffer.from(so).indexOf('hello from rodata')
    expect(at).toBeGreaterThanOrEqual(rodata.offset)
    let lddw = 0,
      internal = 0
    for (let i = text.offset; i < text.offset + text.size; i += 8) {
      const insn = elf.insn(i)
      if (insn.op === 0x18) {
        const addr = (BigInt(elf.v.getUint32(i + 12, true)) << 32n) | BigInt(elf.v.getUint32(i + 4, true))
        expect(addr).toBe(MM_PROGRAM_START + BigInt(at))
        lddw++
        i += 8
      }
      if (insn.op === 0x85 && insn.imm !== -1) {
        const target = (i - text.offset) / 8 + 1 + insn.imm
        expect(target).toBeGreaterThanOrEqual(0)
        expect(target).toBeLessThan(text.size / 8)
        internal++
      }
    }
    expect(lddw).toBe(1)
    expect(internal).toBeGreaterThan(0)
    expect(elf.relocations.map((r) => r.symbol)).toEqual(['sol_log_'])
    expect(elf.insn(elf.relocations[0]!.offset)).toEqual({ op: 0x85, src: 0, imm: -1 })
  })

  it('writes pointers held in read-only data as absolute addresses', () => {
    const so = linkProgram(
      compile(`
      typedef struct { const char *name; unsigned long long len; } Entry;
      static const char a[] = "alpha";
      unsigned long long entrypoint(const unsigned char *input) {
        volatile Entry table[1] = {{a, 5}};
        return (unsigned long long)table[0].name[input[0] & 3];
      }`),
    )
    const elf = inspect(so)
    const at = Buffer.from(so).indexOf('alpha')
    const rodata = elf.sec('.rodata')
    const words = Array.from({ length: Math.floor(rodata.size / 8) }, (_, i) =>
      elf.v.getBigUint64(rodata.offset + i * 8, true),
    )
    // Either the table was folded into code (lddw) or it sits in .rodata as an absolute pointer.
    const text = elf.sec('.text')
    const lddws: bigint[] = []
    for (let i = text.offset; i < text.offset + text.size; i += 8) {
      if (so[i] === 0x18)
        lddws.push((BigInt(elf.v.getUint32(i + 12, true)) << 32n) | BigInt(elf.v.getUint32(i + 4, true)))
    }
    expect([...words, ...lddws]).toContain(MM_PROGRAM_START + BigInt(at))
  })

  it('rejects writable globals', () => {
    expect(() =>
      linkProgram(
        compile('int counter = 1; unsigned long long entrypoint(const unsigned char *i) { return ++counter; }'),
      ),
    ).toThrow(/writable section \.data/)
    expect(() =>
      linkProgram(compile('int counter; unsigned long long entrypoint(const unsigned char *i) { return ++counter; }')),
    ).toThrow(/writable section \.bss|common symbol/)
  })

  it('rejects calls to undefined symbols that are not syscalls', () => {
    expect(() =>
      linkProgram(
        compile(`
      void memcpy_like(void *, const void *, unsigned long long);
      unsigned long long entrypoint(const unsigned char *i) { char b[8]; memcpy_like(b, i, 8); return b[0]; }`),
      ),
    ).toThrow(/memcpy_like.*not a Solana syscall/)
  })

  it('rejects an object without an entrypoint', () => {
    expect(() => linkProgram(compile('unsigned long long main(const unsigned char *i) { return 0; }'))).toThrow(
      LinkError,
    )
  })
})

describe('readElfObject', () => {
  it('refuses what is not a BPF relocatable object', () => {
    expect(() => linkProgram(new Uint8Array(64))).toThrow(/not a 64-bit/)
    expect(() => linkProgram(readFileSync(process.execPath).subarray(0, 4096))).toThrow(LinkError)
  })
})
