/**
 * Builds the Solana programs from source: clang-19 compiles each program (one translation unit) to
 * a BPF object, and our linker (./link) turns it into the SBPFv0 shared object the loader takes.
 * Deterministic: same sources and clang-19 give the same bytes, which the committed .so files are.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { linkProgram } from './link/link.js'
import type { ProgramName } from './programs.js'

export { PROGRAMS, type ProgramName, programPath } from './programs.js'

export const solanaDir = fileURLToPath(new URL('.', import.meta.url))
export const sourceDir = join(solanaDir, 'src')
export const buildDir = join(solanaDir, 'build')
export const CLANG = 'clang-19'

/** -mcpu=v1: the instruction set SBPFv0 runs. 4 KiB frames as on Solana: an oversized frame fails to compile. */
export const CLANG_FLAGS = [
  '-target',
  'bpf',
  '-mcpu=v1',
  '-O2',
  '-fPIC',
  '-ffreestanding',
  '-fno-builtin',
  '-Wall',
  '-Werror',
  '-mllvm',
  '-bpf-stack-size=4096',
]

export function hasClang(): boolean {
  try {
    execFileSync(CLANG, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Compiles and links one program; returns the .so bytes. */
export function buildProgram(name: ProgramName): Uint8Array {
  const work = mkdtempSync(join(tmpdir(), 'parx-sbpf-'))
  try {
    const object = join(work, `${name}.o`)
    // Run from the source dir with a relative path, so nothing machine-specific reaches the object.
    execFileSync(CLANG, [...CLANG_FLAGS, '-c', `${name}.c`, '-o', object], {
      cwd: sourceDir,
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    return linkProgram(readFileSync(object))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
