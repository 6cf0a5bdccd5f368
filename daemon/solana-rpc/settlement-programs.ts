import { Keypair, type PublicKey } from '@solana/web3.js'
import {
  configPda,
  decodeConfig,
  initConfigInstruction,
  PROGRAM_DATA_AUTHORITY_OPTION,
  programDataAddress,
} from '../../contracts/solana/client.js'
import { type ProgramName, programBytes } from '../../contracts/solana/programs.js'
import { BaseError } from '../../src/errors/base.js'
import { type ClusterDeployments, readMint, writeMint } from './local-deployments.js'
import type { LocalSvm } from './local-svm.js'

export type SettlementPrograms = { originSettler: PublicKey; destSettler: PublicKey }

/**
 * Loads origin_settler and dest_settler (the committed .so files) into the embedded cluster and
 * initialises origin_settler's config with the service's three attestor keys, threshold 2, signed
 * by `admin` (made the programs' upgrade authority).
 *
 * Program ids are recorded in `deployments` beside the mints (same rows, named after the program)
 * and reused on restart; programs are loaded again from the committed bytes at every start, while
 * the config account, written by a real transaction, persists with the other accounts. A config
 * naming other attestors cannot be changed, so the origin program then moves to a fresh id.
 */
export async function ensureSettlementPrograms(p: {
  svm: LocalSvm
  deployments: ClusterDeployments
  admin: Keypair
  attestors: PublicKey[]
}): Promise<SettlementPrograms> {
  const destSettler = await load(p, 'dest_settler')
  let originSettler = await load(p, 'origin_settler')
  let config = p.svm.getAccount(configPda(originSettler).toBase58())
  if (config && !sameAttestors(decodeConfig(config.data).attestors, p.attestors)) {
    originSettler = await load(p, 'origin_settler', true)
    config = null
  }
  if (!config) {
    await p.svm.sendInstructions(
      [initConfigInstruction({ program: originSettler, admin: p.admin.publicKey, attestors: p.attestors })],
      [p.admin],
    )
  }
  return { originSettler, destSettler }
}

async function load(
  p: { svm: LocalSvm; deployments: ClusterDeployments; admin: Keypair },
  name: ProgramName,
  fresh = false,
): Promise<PublicKey> {
  const id = (!fresh && (await readMint(p.deployments, name))) || Keypair.generate().publicKey
  await writeMint(p.deployments, name, id)
  p.svm.addProgram(id.toBase58(), programBytes(name))
  // litesvm loads programs without an upgrade authority; the admin is made it, as a deploy by the
  // admin would, since origin_settler lets only its upgrade authority write the config.
  const programData = programDataAddress(id).toBase58()
  const state = p.svm.getAccount(programData)
  if (!state) throw new BaseError('CHAIN_SETUP_FAILED', `${name}: no ProgramData account after loading`)
  const data = new Uint8Array(state.data)
  data[PROGRAM_DATA_AUTHORITY_OPTION] = 1
  data.set(p.admin.publicKey.toBytes(), PROGRAM_DATA_AUTHORITY_OPTION + 1)
  p.svm.setAccount(programData, { ...state, data })
  return id
}

export const sameAttestors = (a: PublicKey[], b: PublicKey[]) =>
  a.length === b.length && a.every((k, i) => k.equals(b[i]!))
