import { type Address, type Hex, parseAbi, parseSignature, size } from 'viem'
import { authorizationFields } from '../../eip712.js'
import { encodeCall } from '../../encode-call.js'
import type { ExecCall } from './executor.js'

const erc20And2612Abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function nonces(address) view returns (uint256)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, bytes signature)',
])
/** The token surface the facilitator uses: ERC-20, EIP-2612 and EIP-3009 (both signature forms). */
export const tokenAbi = [
  ...erc20And2612Abi,
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      ...authorizationFields,
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [...authorizationFields, { name: 'signature', type: 'bytes' }],
    outputs: [],
  },
] as const

const call = (target: Address, data: Hex): ExecCall => ({ target, data })

export const readCall = {
  balanceOf: (token: Address, owner: Address) =>
    call(token, encodeCall({ abi: tokenAbi, functionName: 'balanceOf', args: [owner] })),
  nonces: (token: Address, owner: Address) =>
    call(token, encodeCall({ abi: tokenAbi, functionName: 'nonces', args: [owner] })),
  name: (token: Address) => call(token, encodeCall({ abi: tokenAbi, functionName: 'name' })),
  version: (token: Address) => call(token, encodeCall({ abi: tokenAbi, functionName: 'version' })),
  authorizationState: (token: Address, from: Address, nonce: Hex) =>
    call(token, encodeCall({ abi: tokenAbi, functionName: 'authorizationState', args: [from, nonce] })),
}

/** ECDSA signatures go through the classic (v, r, s) entry points every token has; others (ERC-1271) as bytes. */
const isEcdsa = (signature: Hex) => size(signature) === 65

function vrs(signature: Hex) {
  const { r, s, v, yParity } = parseSignature(signature)
  return { v: Number(v ?? BigInt(yParity + 27)), r, s }
}

/** permit then transferFrom: the erc2612 payment group, run by the facilitator (the spender). */
export function erc2612Group(p: {
  token: Address
  owner: Address
  spender: Address
  value: bigint
  deadline: bigint
  signature: Hex
  to: Address
  amount: bigint
}): ExecCall[] {
  const permit = isEcdsa(p.signature)
    ? (({ v, r, s }) =>
        encodeCall({
          abi: tokenAbi,
          functionName: 'permit',
          args: [p.owner, p.spender, p.value, p.deadline, v, r, s],
        }))(vrs(p.signature))
    : encodeCall({
        abi: tokenAbi,
        functionName: 'permit',
        args: [p.owner, p.spender, p.value, p.deadline, p.signature],
      })
  return [
    call(p.token, permit),
    call(p.token, encodeCall({ abi: tokenAbi, functionName: 'transferFrom', args: [p.owner, p.to, p.amount] })),
  ]
}

/** transferWithAuthorization: the eip3009 payment group (anyone may submit it; the token checks the signature). */
export function eip3009Group(p: {
  token: Address
  from: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: Hex
  signature: Hex
}): ExecCall[] {
  const base = [p.from, p.to, p.value, p.validAfter, p.validBefore, p.nonce] as const
  const data = isEcdsa(p.signature)
    ? (({ v, r, s }) =>
        encodeCall({ abi: tokenAbi, functionName: 'transferWithAuthorization', args: [...base, v, r, s] }))(
        vrs(p.signature),
      )
    : encodeCall({ abi: tokenAbi, functionName: 'transferWithAuthorization', args: [...base, p.signature] })
  return [call(p.token, data)]
}
