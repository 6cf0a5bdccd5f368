/** The committed Solana programs, for whoever loads them (tests, bench, the embedded cluster). */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const PROGRAMS = ['origin_settler', 'dest_settler'] as const
export type ProgramName = (typeof PROGRAMS)[number]

export function programPath(name: ProgramName): string {
  return fileURLToPath(new URL(`./build/${name}.so`, import.meta.url))
}

export function programBytes(name: ProgramName): Uint8Array {
  return readFileSync(programPath(name))
}
