/**
 * Writes the SBPFv0 shared object the Solana loader accepts (anza-xyz/sbpf, lenient parser):
 * ET_DYN, EM_BPF, e_flags 0; every section's address equals its file offset; one `.text` and one
 * `.rodata`; a `.dynamic` naming `.dynsym`, `.dynstr` and `.rel.dyn`, whose only entries are the
 * syscall call sites (R_BPF_64_32 against a named undefined symbol: the loader hashes the name into
 * the syscall id). Everything else was resolved by the linker before this point.
 */
export const R_BPF_64_32 = 10

/** Where each part lands; the linker needs `text` and `rodata` addresses before it patches code. */
export type Layout = {
  programHeaders: number
  text: number
  rodata: number
  rodataAlign: number
}

const EHDR = 64
const PHDR = 56
const SHDR = 64
const align = (n: number, a: number) => Math.ceil(n / a) * a

export function planLayout(textSize: number, rodataSize: number, rodataAlign: number): Layout {
  const programHeaders = rodataSize > 0 ? 4 : 3
  const text = align(EHDR + programHeaders * PHDR, 8)
  const a = Math.max(8, rodataAlign)
  return { programHeaders, text, rodata: align(text + textSize, a), rodataAlign: a }
}

export type SharedObjectParts = {
  layout: Layout
  text: Uint8Array
  rodata: Uint8Array
  /** Byte offset of the entrypoint inside `.text`. */
  entry: number
  /** Call instructions left for the loader, by byte offset inside `.text`. */
  syscallSites: { offset: number; name: string }[]
}

class Writer {
  bytes: Uint8Array
  view: DataView
  constructor(size: number) {
    this.bytes = new Uint8Array(size)
    this.view = new DataView(this.bytes.buffer)
  }
  u16 = (at: number, v: number) => this.view.setUint16(at, v, true)
  u32 = (at: number, v: number) => this.view.setUint32(at, v, true)
  u64 = (at: number, v: number | bigint) => this.view.setBigUint64(at, BigInt(v), true)
}

type Section = {
  name: string
  type: number
  flags: number
  offset: number
  size: number
  link: number
  info: number
  align: number
  entsize: number
}

export function writeSharedObject(p: SharedObjectParts): Uint8Array {
  const { layout } = p
  // Names sorted so the output does not depend on the order calls appear in.
  const names = [...new Set(p.syscallSites.map((s) => s.name))].sort()
  const dynstrParts = ['', ...names]
  const dynstr = new TextEncoder().encode(dynstrParts.join('\0') + '\0')
  const nameOffset = new Map<string, number>()
  let at = 1
  for (const n of names) {
    nameOffset.set(n, at)
    at += n.length + 1
  }
  const hasRel = p.syscallSites.length > 0
  const textEnd = layout.text + p.text.length
  const rodataEnd = p.rodata.length > 0 ? layout.rodata + p.rodata.length : textEnd
  const dynEntries: [number, number][] = [
    [6, 0],
    [11, 24],
    [5, 0],
    [10, dynstr.length],
  ]
  if (hasRel) dynEntries.push([17, 0], [18, p.syscallSites.length * 16], [19, 16])
  dynEntries.push([0, 0])
  const dynamic = align(rodataEnd, 8)
  const dynsym = dynamic + dynEntries.length * 16
  const dynstrAt = dynsym + (1 + names.length) * 24
  const rel = align(dynstrAt + dynstr.length, 8)
  const relEnd = rel + (hasRel ? p.syscallSites.length * 16 : 0)
  // DT_SYMTAB, DT_STRTAB and DT_REL point at addresses, which equal file offsets here.
  for (const e of dynEntries) {
    if (e[0] === 6) e[1] = dynsym
    if (e[0] === 5) e[1] = dynstrAt
    if (e[0] === 17) e[1] = rel
  }

  const sections: Section[] = [
    { name: '', type: 0, flags: 0, offset: 0, size: 0, link: 0, info: 0, align: 0, entsize: 0 },
  ]
  sections.push({
    name: '.text',
    type: 1,
    flags: 6,
    offset: layout.text,
    size: p.text.length,
    link: 0,
    info: 0,
    align: 8,
    entsize: 0,
  })
  if (p.rodata.length > 0)
    sections.push({
      name: '.rodata',
      type: 1,
      flags: 2,
      offset: layout.rodata,
      size: p.rodata.length,
      link: 0,
      info: 0,
      align: layout.rodataAlign,
      entsize: 0,
    })
  const dynstrIndex = sections.length + 2
  sections.push({
    name: '.dynamic',
    type: 6,
    flags: 2,
    offset: dynamic,
    size: dynEntries.length * 16,
    link: dynstrIndex,
    info: 0,
    align: 8,
    entsize: 16,
  })
  const dynsymIndex = sections.length
  sections.push({
    name: '.dynsym',
    type: 11,
    flags: 2,
    offset: dynsym,
    size: (1 + names.length) * 24,
    link: dynstrIndex,
    info: 1,
    align: 8,
    entsize: 24,
  })
  sections.push({
    name: '.dynstr',
    type: 3,
    flags: 2,
    offset: dynstrAt,
    size: dynstr.length,
    link: 0,
    info: 0,
    align: 1,
    entsize: 0,
  })
  if (hasRel)
    sections.push({
      name: '.rel.dyn',
      type: 9,
      flags: 2,
      offset: rel,
      size: relEnd - rel,
      link: dynsymIndex,
      info: 0,
      align: 8,
      entsize: 16,
    })
  const shstrtabAt = relEnd
  const shstrNames = sections.map((s) => s.name).concat('.shstrtab')
  const shstr = new TextEncoder().encode(shstrNames.join('\0') + '\0')
  sections.push({
    name: '.shstrtab',
    type: 3,
    flags: 0,
    offset: shstrtabAt,
    size: shstr.length,
    link: 0,
    info: 0,
    align: 1,
    entsize: 0,
  })
  const shoff = align(shstrtabAt + shstr.length, 8)

  const w = new Writer(shoff + sections.length * SHDR)
  // ELF header.
  w.bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0)
  w.u16(16, 3) // ET_DYN
  w.u16(18, 247) // EM_BPF
  w.u32(20, 1)
  w.u64(24, layout.text + p.entry)
  w.u64(32, EHDR)
  w.u64(40, shoff)
  w.u32(48, 0) // e_flags 0: SBPFv0
  w.u16(52, EHDR)
  w.u16(54, PHDR)
  w.u16(56, layout.programHeaders)
  w.u16(58, SHDR)
  w.u16(60, sections.length)
  w.u16(62, sections.length - 1)

  // Program headers: loads in ascending address order, then the dynamic segment.
  const phdrs: [type: number, flags: number, offset: number, size: number][] = [[1, 5, layout.text, p.text.length]]
  if (p.rodata.length > 0) phdrs.push([1, 4, layout.rodata, p.rodata.length])
  phdrs.push([1, 4, dynamic, relEnd - dynamic], [2, 4, dynamic, dynEntries.length * 16])
  phdrs.forEach(([type, flags, offset, size], i) => {
    const h = EHDR + i * PHDR
    w.u32(h, type)
    w.u32(h + 4, flags)
    w.u64(h + 8, offset)
    w.u64(h + 16, offset)
    w.u64(h + 24, offset)
    w.u64(h + 32, size)
    w.u64(h + 40, size)
    w.u64(h + 48, 8)
  })

  w.bytes.set(p.text, layout.text)
  if (p.rodata.length > 0) w.bytes.set(p.rodata, layout.rodata)
  dynEntries.forEach(([tag, value], i) => {
    w.u64(dynamic + i * 16, tag)
    w.u64(dynamic + i * 16 + 8, value)
  })
  names.forEach((n, i) => {
    const s = dynsym + (i + 1) * 24
    w.u32(s, nameOffset.get(n)!)
    w.bytes[s + 4] = 0x10 // STB_GLOBAL, STT_NOTYPE: undefined, so the loader takes it for a syscall
  })
  w.bytes.set(dynstr, dynstrAt)
  const sorted = [...p.syscallSites].sort((a, b) => a.offset - b.offset)
  sorted.forEach((site, i) => {
    w.u64(rel + i * 16, layout.text + site.offset)
    w.u64(rel + i * 16 + 8, (BigInt(names.indexOf(site.name) + 1) << 32n) | BigInt(R_BPF_64_32))
  })
  w.bytes.set(shstr, shstrtabAt)
  let nameAt = 0
  sections.forEach((s, i) => {
    const h = shoff + i * SHDR
    w.u32(h, nameAt)
    nameAt += s.name.length + 1
    w.u32(h + 4, s.type)
    w.u64(h + 8, s.flags)
    w.u64(h + 16, s.type === 0 ? 0 : s.offset)
    w.u64(h + 24, s.offset)
    w.u64(h + 32, s.size)
    w.u32(h + 40, s.link)
    w.u32(h + 44, s.info)
    w.u64(h + 48, s.align)
    w.u64(h + 56, s.entsize)
  })
  return w.bytes
}
