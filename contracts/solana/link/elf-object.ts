/**
 * Reads the one relocatable ELF object clang-19 writes for a program (`-target bpf`): its
 * sections, its symbols and its REL relocations. Only what the linker needs; anything this reader
 * does not understand is refused, never skipped.
 */
export const SHT_SYMTAB = 2
export const SHT_NOBITS = 8
export const SHT_REL = 9
export const SHF_WRITE = 0x1
export const SHF_ALLOC = 0x2
export const SHN_UNDEF = 0
export const SHN_ABS = 0xfff1
export const SHN_COMMON = 0xfff2
export const EM_BPF = 247

export type ObjectSection = {
  index: number
  name: string
  type: number
  flags: bigint
  align: number
  data: Uint8Array
  size: number
}

export type ObjectSymbol = {
  name: string
  /** STT_* in the low nibble of st_info. */
  type: number
  bind: number
  section: number
  value: number
}

export type ObjectRelocation = { offset: number; type: number; symbol: number }

export type ElfObject = {
  sections: ObjectSection[]
  symbols: ObjectSymbol[]
  /** Relocations by the index of the section they patch. */
  relocations: Map<number, ObjectRelocation[]>
}

export class LinkError extends Error {
  override name = 'LinkError'
}

export function readElfObject(input: Uint8Array): ElfObject {
  // A plain copy: a Node Buffer's slice() is a view into a shared pool, not a copy.
  const bytes = new Uint8Array(input)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const magic = bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46
  if (!magic || bytes[4] !== 2 || bytes[5] !== 1) throw new LinkError('not a 64-bit little-endian ELF file')
  if (view.getUint16(16, true) !== 1) throw new LinkError('not a relocatable object (ET_REL)')
  if (view.getUint16(18, true) !== EM_BPF)
    throw new LinkError(`not a BPF object (e_machine ${view.getUint16(18, true)})`)
  const shoff = Number(view.getBigUint64(40, true))
  const shentsize = view.getUint16(58, true)
  const shnum = view.getUint16(60, true)
  const shstrndx = view.getUint16(62, true)
  if (shentsize !== 64) throw new LinkError('unexpected section header size')

  const raw = Array.from({ length: shnum }, (_, i) => {
    const at = shoff + i * 64
    return {
      name: view.getUint32(at, true),
      type: view.getUint32(at + 4, true),
      flags: view.getBigUint64(at + 8, true),
      offset: Number(view.getBigUint64(at + 24, true)),
      size: Number(view.getBigUint64(at + 32, true)),
      link: view.getUint32(at + 40, true),
      info: view.getUint32(at + 44, true),
      align: Number(view.getBigUint64(at + 48, true)),
    }
  })
  const strAt = (table: number, at: number) => {
    const start = raw[table]!.offset + at
    let end = start
    while (bytes[end] !== 0) end++
    return new TextDecoder().decode(bytes.subarray(start, end))
  }
  const sections: ObjectSection[] = raw.map((s, index) => ({
    index,
    name: strAt(shstrndx, s.name),
    type: s.type,
    flags: s.flags,
    align: Math.max(1, s.align),
    size: s.size,
    data: s.type === SHT_NOBITS ? new Uint8Array(s.size) : bytes.slice(s.offset, s.offset + s.size),
  }))

  const symtab = raw.findIndex((s) => s.type === SHT_SYMTAB)
  if (symtab < 0) throw new LinkError('object has no symbol table')
  const st = raw[symtab]!
  const symbols: ObjectSymbol[] = []
  for (let at = st.offset; at < st.offset + st.size; at += 24) {
    const info = bytes[at + 4]!
    symbols.push({
      name: strAt(st.link, view.getUint32(at, true)),
      type: info & 0xf,
      bind: info >> 4,
      section: view.getUint16(at + 6, true),
      value: Number(view.getBigUint64(at + 8, true)),
    })
  }

  const relocations = new Map<number, ObjectRelocation[]>()
  raw.forEach((s, i) => {
    if (s.type === 4) throw new LinkError(`RELA section ${sections[i]!.name} is not expected from clang -target bpf`)
    if (s.type !== SHT_REL) return
    const list: ObjectRelocation[] = []
    for (let at = s.offset; at < s.offset + s.size; at += 16) {
      const info = view.getBigUint64(at + 8, true)
      list.push({
        offset: Number(view.getBigUint64(at, true)),
        type: Number(info & 0xffffffffn),
        symbol: Number(info >> 32n),
      })
    }
    relocations.set(s.info, list)
  })
  return { sections, symbols, relocations }
}
