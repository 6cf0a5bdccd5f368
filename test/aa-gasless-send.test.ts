import { type Address, encodeFunctionData, getAddress, keccak256, parseUnits, toHex, zeroAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as PermitToken from '../contracts/evm/artifacts/PermitToken.js'
import { startTestChain, type TestChain } from '../contracts/evm/testing/chain.js'
import { signPermit } from '../contracts/evm/testing/sign.js'
import { balanceOf, type DeployedToken, deployToken, mint } from '../contracts/evm/testing/tokens.js'
import { createAgentAccount } from '../daemon/buyer/aa/agent-account.js'
import { ENTRY_POINT_08, SIMPLE_7702_ACCOUNT } from '../daemon/buyer/aa/canonical.js'
import { type LocalAa, startLocalAa } from '../daemon/buyer/aa/local-stack.js'
import { createSponsor } from '../daemon/buyer/aa/sponsor.js'

const key = (label: string) => keccak256(toHex(`parx aa test ${label}`))
const transfer = (to: Address, amount: bigint) =>
  encodeFunctionData({ abi: PermitToken.abi, functionName: 'transfer', args: [to, amount] })

describe('gasless sends: EIP-7702 account, our paymaster, alto', () => {
  let tc: TestChain
  let aa: LocalAa
  let pusd: DeployedToken
  const agentWallets = new Set<Address>()
  const sponsorKey = privateKeyToAccount(key('sponsor'))

  beforeAll(async () => {
    tc = await startTestChain()
    aa = await startLocalAa({
      rpcUrl: tc.anvil.rpcUrl,
      client: tc.client,
      deployer: tc.wallet(tc.accounts.deployer),
      sponsorKey,
      executorKey: key('executor'),
      utilityKey: key('utility'),
      sponsors: (a) => agentWallets.has(a),
    })
    pusd = await deployToken(tc, 'PUSD')
  }, 90_000)
  afterAll(async () => {
    await aa?.stop()
    await tc?.stop()
  })

  async function newAgent(funded: bigint) {
    const owner = privateKeyToAccount(generatePrivateKey())
    agentWallets.add(owner.address)
    if (funded > 0n) await mint(tc, pusd, owner.address, funded)
    const agent = await createAgentAccount({
      owner,
      client: tc.client,
      chain: tc.chain,
      bundlerUrl: aa.alto.url,
      sponsor: aa.sponsor,
    })
    return { owner, agent }
  }

  it('deploys EntryPoint v0.8 and Simple7702Account at their canonical addresses, and a staked paymaster', async () => {
    expect(aa.deployment.entryPoint).toBe(ENTRY_POINT_08)
    for (const a of [ENTRY_POINT_08, SIMPLE_7702_ACCOUNT, aa.deployment.paymaster])
      expect((await tc.client.getCode({ address: a }))?.length).toBeGreaterThan(100)
    const deposit = await tc.client.readContract({
      address: ENTRY_POINT_08,
      abi: [
        {
          type: 'function',
          name: 'balanceOf',
          stateMutability: 'view',
          inputs: [{ type: 'address' }],
          outputs: [{ type: 'uint256' }],
        },
      ],
      functionName: 'balanceOf',
      args: [aa.deployment.paymaster],
    })
    expect(deposit).toBe(parseUnits('10', 18))
  })

  it('a fresh EOA with 0 ETH sends an ERC-20 as a sponsored user operation and still holds 0 ETH', async () => {
    const { owner, agent } = await newAgent(parseUnits('100', 18))
    const to = privateKeyToAccount(generatePrivateKey()).address
    expect(await tc.client.getBalance({ address: owner.address })).toBe(0n)
    expect(agent.address).toBe(owner.address)

    const receipt = await agent.sendNow([{ to: pusd.address, data: transfer(to, parseUnits('1.5', 18)) }])
    expect(receipt.success).toBe(true)
    expect(getAddress(receipt.paymaster!)).toBe(aa.deployment.paymaster)
    expect(getAddress(receipt.sender)).toBe(owner.address)
    expect(await balanceOf(tc, pusd, owner.address)).toBe(parseUnits('98.5', 18))
    expect(await balanceOf(tc, pusd, to)).toBe(parseUnits('1.5', 18))
    expect(await tc.client.getBalance({ address: owner.address })).toBe(0n)
    // The EOA now delegates to Simple7702Account (EIP-7702 designator 0xef0100 || address).
    expect((await tc.client.getCode({ address: owner.address }))?.toLowerCase()).toBe(
      `0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`,
    )

    // A second send: already delegated, no authorization this time.
    const again = await agent.sendNow([{ to: pusd.address, data: transfer(to, parseUnits('0.25', 18)) }])
    expect(again.success).toBe(true)
    expect(await balanceOf(tc, pusd, to)).toBe(parseUnits('1.75', 18))
    expect(await tc.client.getBalance({ address: owner.address })).toBe(0n)
  }, 60_000)

  it('the same address still signs EIP-2612 permits the token accepts (ERC-1271 through the delegate)', async () => {
    const { owner, agent } = await newAgent(parseUnits('10', 18))
    await agent.sendNow([{ to: pusd.address, data: transfer(tc.accounts.user.address, 1n) }])
    expect((await tc.client.getCode({ address: owner.address }))?.startsWith('0xef0100')).toBe(true)

    const spender = tc.accounts.other
    const value = parseUnits('4', 18)
    const deadline = (await tc.latestTimestamp()) + 3600n
    const sig = await signPermit(owner, pusd.domain, { spender: spender.address, value, nonce: 0n, deadline })
    await tc.send(spender, {
      address: pusd.address,
      abi: PermitToken.abi,
      functionName: 'permit',
      args: [owner.address, spender.address, value, deadline, sig.v, sig.r, sig.s],
    })
    await tc.send(spender, {
      address: pusd.address,
      abi: PermitToken.abi,
      functionName: 'transferFrom',
      args: [owner.address, spender.address, value],
    })
    expect(await balanceOf(tc, pusd, spender.address)).toBe(value)
    expect(await balanceOf(tc, pusd, owner.address)).toBe(parseUnits('6', 18) - 1n)
    expect(await tc.client.getBalance({ address: owner.address })).toBe(0n)
  }, 60_000)

  it('the sponsor refuses a sender that is not an agent before signing; nothing moves', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey())
    await mint(tc, pusd, stranger.address, 5n)
    const agent = await createAgentAccount({
      owner: stranger,
      client: tc.client,
      chain: tc.chain,
      bundlerUrl: aa.alto.url,
      sponsor: aa.sponsor,
    })
    await expect(agent.sendNow([{ to: pusd.address, data: transfer(zeroAddress, 5n) }])).rejects.toMatchObject({
      code: 'FORBIDDEN',
    })
    expect(await balanceOf(tc, pusd, stranger.address)).toBe(5n)
  }, 30_000)

  it('a paymaster signature from another key is refused on chain; nothing moves', async () => {
    const { owner } = await newAgent(5n)
    const forger = createSponsor({
      paymaster: aa.deployment.paymaster,
      signer: privateKeyToAccount(generatePrivateKey()),
      sponsors: () => true,
    })
    const agent = await createAgentAccount({
      owner,
      client: tc.client,
      chain: tc.chain,
      bundlerUrl: aa.alto.url,
      sponsor: forger,
    })
    await expect(
      agent.sendNow([{ to: pusd.address, data: transfer(tc.accounts.user.address, 5n) }]),
    ).rejects.toMatchObject({
      code: 'RELAY_FAILED',
      message: expect.stringMatching(/bundler refused the user operation .*nothing was spent/),
    })
    expect(await balanceOf(tc, pusd, owner.address)).toBe(5n)
  }, 30_000)

  it('20 sends, submit to receipt (figure printed, not asserted)', async () => {
    const { owner, agent } = await newAgent(parseUnits('20', 18))
    const to = tc.accounts.user.address
    const before = await balanceOf(tc, pusd, to)
    const total: number[] = []
    const submit: number[] = []
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now()
      const op = await agent.prepare([{ to: pusd.address, data: transfer(to, parseUnits('1', 18)) }])
      const t1 = performance.now()
      const r = await agent.submit(op)
      const t2 = performance.now()
      total.push(t2 - t0)
      submit.push(t2 - t1)
      expect(r.success).toBe(true)
    }
    expect(await balanceOf(tc, pusd, to)).toBe(before + parseUnits('20', 18))
    expect(await balanceOf(tc, pusd, owner.address)).toBe(0n)
    expect(await tc.client.getBalance({ address: owner.address })).toBe(0n)
    const p = (xs: number[], q: number) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!)
    // prepare+sign+submit+receipt, and submit (pimlico_sendUserOperationNow) to receipt alone.
    console.log(
      JSON.stringify({
        figure: 'aa-send',
        n: 20,
        totalP50Ms: p(total, 0.5),
        totalP90Ms: p(total, 0.9),
        submitToReceiptP50Ms: p(submit, 0.5),
        submitToReceiptP90Ms: p(submit, 0.9),
      }),
    )
  }, 120_000)

  it('a bundler that is down answers BUNDLER_UNAVAILABLE; nothing is spent', async () => {
    const { owner, agent } = await newAgent(7n)
    await aa.alto.stop()
    await expect(
      agent.sendNow([{ to: pusd.address, data: transfer(tc.accounts.user.address, 7n) }]),
    ).rejects.toMatchObject({ code: 'BUNDLER_UNAVAILABLE' })
    expect(await balanceOf(tc, pusd, owner.address)).toBe(7n)
  }, 30_000)
})
