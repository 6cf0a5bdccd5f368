/**
 * Our SBPF linker: one clang-19 BPF object in, one SBPFv0 shared object out.
 *
 * - `.text` is kept whole (the loader wants exactly one); `.rodata*` and `.data.rel.ro*` merge
 *   into one `.rodata`. Any other allocated section is refused: `.data`/`.bss` would be mutable
 *   globals, which the loader rejects.
 * - `lddw` (R_BPF_64_64) and pointers in read-only data (R_BPF_64_ABS64) get absolute VM
 *   addresses: 0x1_0000_0000 + the file offset the target lands at.
 * - Calls (R_BPF_64_32) to functions in `.text` become pc-relative immediates (the v0 loader turns
 *   `call imm != -1` into an internal call); calls to undefined symbols stay `call -1` with a
 *   dynamic relocation naming the syscall, and only known syscalls are accepted.
 */
import {
  type ElfObject,
  LinkError,
  readElfObject,
  SHF_ALLOC,
  SHF_WRITE,
  SHN_COMMON,
  SHN_UNDEF,
  SHT_NOBITS,
} from './elf-object.js'
import { planLayout, writeSharedObject } from './shared-object.js'
import { KNOWN_SYSCALLS } from './syscalls.js'

export { LinkError }

/** Where the loader maps the read-only region (text and rodata) of a v0 program. */
export const MM_PROGRAM_START = 0x1_0000_0000n

const R_BPF_NONE = 0
const R_BPF_64_64 = 1
const R_BPF_64_ABS64 = 2
const R_BPF_64_ABS32 = 3
const R_BPF_64_32 = 10
const CALL_IMM = 0x85
const LDDW = 0x18

const isReadOnlyData = (name: string) =>
  name === '.rodata' || name.startsWith('.rodata.') || name.startsWith('.data.rel.ro')

/** Links a BPF relocatable object into an SBPFv0 shared object. Throws LinkError on anything it cannot place. */
export function linkProgram(objectBytes: Uint8Array): Uint8Array {
  const obj = readElfObject(objectBytes)
  const textSections = obj.sections.filter((s) => s.name === '.text' || s.name.startsWith('.text.'))
  if (textSections.length !== 1 || textSections[0]!.name !== '.text') {
    throw new LinkError(
      `expected exactly one .text section, found ${textSections.map((s) => s.name).join(', ') || 'none'} ` +
        '(do not use -ffunction-sections)',
    )
  }
  const textSection = textSections[0]!
  checkSections(obj, textSection.index)

  // Merge read-only data, each input at its own alignment, in section order (deterministic).
  const placedAt = new Map<number, number>() // section index -> offset inside the output rodata
  let rodataSize = 0
  let rodataAlign = 1
  for (const s of obj.sections) {
    if (!(s.flags & BigInt(SHF_ALLOC)) || !isReadOnlyData(s.name) || s.size === 0) continue
    rodataSize = Math.ceil(rodataSize / s.align) * s.align
    placedAt.set(s.index, rodataSize)
    rodataSize += s.size
    rodataAlign = Math.max(rodataAlign, s.align)
  }
  const layout = planLayout(textSection.size, rodataSize, rodataAlign)
  const text = textSection.data.slice()
  const rodata = new Uint8Array(rodataSize)
  for (const [index, at] of placedAt) rodata.set(obj.sections[index]!.data, at)

  /** The absolute VM address of a defined symbol plus an addend. */
  const addressOf = (symbolIndex: number, addend: bigint): bigint => {
    const sym = obj.symbols[symbolIndex]!
    let base: number
    if (sym.section === textSection.index) base = layout.text
    else if (placedAt.has(sym.section)) base = layout.rodata + placedAt.get(sym.section)!
    else
      throw new LinkError(
        `reference to '${sym.name || obj.sections[sym.section]?.name}' in a section that is not loaded`,
      )
    return MM_PROGRAM_START + BigInt(base + sym.value) + addend
  }

  const textView = new DataView(text.buffer, text.byteOffset, text.byteLength)
  const syscallSites: { offset: number; name: string }[] = []
  for (const r of obj.relocations.get(textSection.index) ?? []) {
    const sym = obj.symbols[r.symbol]
    if (!sym) throw new LinkError(`relocation at .text+${r.offset} names unknown symbol ${r.symbol}`)
    if (r.type === R_BPF_NONE) continue
    if (r.type === R_BPF_64_64) {
      if (text[r.offset] !== LDDW) throw new LinkError(`R_BPF_64_64 at .text+${r.offset} is not on an lddw`)
      const addend = BigInt(textView.getInt32(r.offset + 4, true))
      const addr = addressOf(r.symbol, addend)
      textView.setUint32(r.offset + 4, Number(addr & 0xffffffffn), true)
      textView.setUint32(r.offset + 12, Number(addr >> 32n), true)
    } else if (r.type === R_BPF_64_32) {
      if (text[r.offset] !== CALL_IMM) throw new LinkError(`R_BPF_64_32 at .text+${r.offset} is not on a call`)
      text[r.offset + 1] = text[r.offset + 1]! & 0x0f // src 0: a plain `call imm`, as the v0 loader reads it
      if (sym.section === SHN_UNDEF) {
        if (!KNOWN_SYSCALLS.has(sym.name)) {
          throw new LinkError(
            `call to undefined symbol '${sym.name}', which is not a Solana syscall` +
              (sym.name.startsWith('mem') ? ' (use sol_memcpy_/sol_memset_/sol_memcmp_)' : ''),
          )
        }
        textView.setInt32(r.offset + 4, -1, true)
        syscallSites.push({ offset: r.offset, name: sym.name })
      } else if (sym.section === textSection.index && sym.type === 2 /* STT_FUNC */) {
        textView.setInt32(r.offset + 4, sym.value / 8 - r.offset / 8 - 1, true)
      } else {
        throw new LinkError(
          `call at .text+${r.offset} to '${sym.name}', which is neither a function in .text nor a syscall`,
        )
      }
    } else {
      throw new LinkError(`unsupported relocation type ${r.type} in .text at ${r.offset}`)
    }
  }

  const rodataView = new DataView(rodata.buffer, rodata.byteOffset, rodata.byteLength)
  for (const [index, at] of placedAt) {
    for (const r of obj.relocations.get(index) ?? []) {
      const where = at + r.offset
      if (r.type === R_BPF_NONE) continue
      if (r.type === R_BPF_64_ABS64) {
        const addend = rodataView.getBigUint64(where, true)
        rodataView.setBigUint64(where, addressOf(r.symbol, addend), true)
      } else if (r.type === R_BPF_64_ABS32) {
        throw new LinkError(`32-bit pointer in ${obj.sections[index]!.name}: VM addresses do not fit 32 bits`)
      } else {
        throw new LinkError(`unsupported relocation type ${r.type} in ${obj.sections[index]!.name}`)
      }
    }
  }

  const entry = obj.symbols.find((s) => s.name === 'entrypoint' && s.section === textSection.index && s.type === 2)
  if (!entry) throw new LinkError("no function named 'entrypoint' in .text")
  return writeSharedObject({ layout, text, rodata, entry: entry.value, syscallSites })
}

function checkSections(obj: ElfObject, textIndex: number): void {
  for (const s of obj.sections) {
    if (s.index === textIndex || !(s.flags & BigInt(SHF_ALLOC)) || s.size === 0) continue
    if (isReadOnlyData(s.name) && s.type !== SHT_NOBITS) continue
    if (s.flags & BigInt(SHF_WRITE) || s.type === SHT_NOBITS) {
      throw new LinkError(`writable section ${s.name}: programs may not have mutable globals (state lives in accounts)`)
    }
    throw new LinkError(`unsupported allocated section ${s.name}`)
  }
  const common = obj.symbols.find((s) => s.section === SHN_COMMON)
  if (common) throw new LinkError(`common symbol '${common.name}': programs may not have mutable globals`)
  // Relocations into non-loaded sections (debug info) are harmless; into loaded ones we handle above.
  for (const [index] of obj.relocations) {
    const s = obj.sections[index]!
    if (index !== textIndex && s.flags & BigInt(SHF_ALLOC) && !isReadOnlyData(s.name)) {
      throw new LinkError(`relocations in unsupported section ${s.name}`)
    }
  }
}
