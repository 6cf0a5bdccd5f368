import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { UsageError } from '../errors/usage.js'
import * as agentLogin from './commands/agent/login.js'
import * as userLogin from './commands/auth/user-login.js'
import { AGENT_ID, AGENT_KEY, fakeDeps, REVOKED_AGENT_KEY, USER_KEY } from './commands/fake-platform.js'
import * as logout from './commands/logout.js'
import { type CliIo, createContext } from './context.js'
import { maskKey, resolveCredentials } from './credentials.js'
import { describeError } from './describe-error.js'

const dir = mkdtempSync(join(tmpdir(), 'parx-cred-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const out: string[] = []
const io = (env: NodeJS.ProcessEnv = {}): CliIo => ({
  env: { PARX_CONFIG_DIR: join(dir, 'conf'), PARX_RUNTIME_DIR: join(dir, 'run'), ...env },
  stdout: (s) => void out.push(s),
  stderr: () => {},
})
const ctx = (env?: NodeJS.ProcessEnv) => createContext(io(env), { output: 'json', apiUrl: 'http://127.0.0.1:8420' })
const userKey = USER_KEY
const agentKey = AGENT_KEY
const agentId = AGENT_ID
/** Logins check keys with the platform: a fake one here, the file is the real config file. */
const deps = (c = ctx()) => ({ ...fakeDeps({}), ctx: c })

describe('credentials', () => {
  it('are stored 0600 (even with umask 0) in a 0700 folder, holding only the platform section', async () => {
    const old = process.umask(0)
    try {
      const r = (await userLogin.run({ userKey }, deps())).data
      expect(r).toMatchObject({ stored: ['userKey'], key: 'parx-…1111', validated: true, whoami: { name: 'dev' } })
      expect((await agentLogin.run({ agentKey, agentId }, deps())).data).toMatchObject({
        stored: ['agentKey', 'agentId'],
        whoami: { id: agentId },
      })
      expect(statSync(r.path).mode & 0o777).toBe(0o600)
      expect(statSync(join(dir, 'conf')).mode & 0o777).toBe(0o700)
      expect(JSON.parse(readFileSync(r.path, 'utf8'))).toEqual({ platform: { userKey, agentKey, agentId } })
    } finally {
      process.umask(old)
    }
    // Printed output never carries a whole key.
    expect(out.join('\n')).not.toContain(userKey)
    expect(out.join('\n')).not.toContain(agentKey)
  })

  it('the environment overrides the file; the platform URL defaults to the local daemon', async () => {
    const file = await resolveCredentials(ctx())
    expect(file.values).toEqual({ agentsUrl: 'http://127.0.0.1:8420', userKey, agentKey, agentId })
    expect(file.sources).toEqual({ agentsUrl: 'default', userKey: 'file', agentKey: 'file', agentId: 'file' })
    const env = await resolveCredentials(
      ctx({ PARX_AGENTS_URL: 'https://agents.example', PARX_AGENT_KEY: 'parxa-from-env-00001111' }),
    )
    expect(env.values).toMatchObject({
      agentsUrl: 'https://agents.example',
      agentKey: 'parxa-from-env-00001111',
      userKey,
    })
    expect(env.sources).toMatchObject({ agentsUrl: 'env', agentKey: 'env', userKey: 'file' })
  })

  it('without a terminal, a missing key is a usage error naming the flag', async () => {
    const e = await userLogin.run({}, deps()).catch((e: unknown) => e)
    expect((e as UsageError).code).toBe('USAGE')
    expect((e as UsageError).message).toMatch(/--user-key/)
    const bad = await agentLogin.run({ agentKey, agentId: 'nope' }, deps()).catch((e: unknown) => e)
    expect((bad as UsageError).message).toMatch(/--agent-id 'nope' is not a UUID/)
    const other = await agentLogin
      .run({ agentKey, agentId: '00000000-0000-4000-8000-000000000000' }, deps())
      .catch((e: unknown) => e)
    expect(describeError(other)).toMatchObject({
      code: 'USAGE',
      exit: 2,
      message: expect.stringMatching(/not the agent of this key/),
    })
  })

  it('a wrong or revoked key is refused by the platform and never stored (auth exit code)', async () => {
    const before = await resolveCredentials(ctx())
    for (const run of [
      () => agentLogin.run({ agentKey: REVOKED_AGENT_KEY }, deps()),
      () => userLogin.run({ userKey: `parx-u-${'9'.repeat(64)}` }, deps()),
    ]) {
      const e = await run().catch((x: unknown) => x)
      expect(describeError(e)).toMatchObject({ code: 'UNAUTHORIZED', exit: 4 })
    }
    expect(await resolveCredentials(ctx())).toEqual(before)
  })

  it('logout removes the agent, the user, or both, and says when the environment still sets one', async () => {
    expect(await logout.run({ agent: true }, ctx())).toMatchObject({
      removed: ['agentKey', 'agentId'],
      stillFromEnv: [],
    })
    expect((await resolveCredentials(ctx())).values).toEqual({ agentsUrl: 'http://127.0.0.1:8420', userKey })
    const r = await logout.run({}, ctx({ PARX_USER_KEY: 'parx-u-env-key-00000000' }))
    expect(r).toMatchObject({ removed: ['userKey'], stillFromEnv: ['PARX_USER_KEY'] })
    expect(JSON.parse(readFileSync(r.path, 'utf8'))).toEqual({})
  })

  it('platform commands take the stored agent id with the stored key, not with an agent key from the environment', async () => {
    const { platformDeps } = await import('./commands/platform-shared.js')
    await agentLogin.run({ agentKey }, deps())
    expect((await platformDeps(ctx())).session).toMatchObject({ agentKey: true, agentId })
    expect((await platformDeps(ctx({ PARX_AGENT_KEY: `parx-a-${'4'.repeat(64)}` }))).session.agentId).toBeUndefined()
    expect(
      (await platformDeps(ctx({ PARX_AGENT_KEY: `parx-a-${'4'.repeat(64)}`, PARX_AGENT_ID: agentId }))).session.agentId,
    ).toBe(agentId)
    await logout.run({ agent: true }, ctx())
  })

  it('masks keys to a prefix and the last 4', () => {
    expect(maskKey('parx-0123456789abcdef0123456789abcdef')).toBe('parx-…cdef')
    expect(maskKey('parxu-secret-key-abcd1234')).toBe('parxu-…1234')
    expect(maskKey('short-key')).toBe('short-…')
    expect(maskKey('0123456789abcdef')).toBe('0123…cdef')
  })
})

describe('parx config for the platform side', () => {
  it('sets the platform URL and agent id, refuses keys and unknown fields, and shows keys masked', async () => {
    const { run: set } = await import('./commands/config/set.js')
    const { run: get } = await import('./commands/config/get.js')
    await userLogin.run({ userKey }, deps())
    expect((await set('platform.agentsUrl', 'https://agents.example/', ctx())).value).toBe('https://agents.example')
    await expect(set('platform.agentsUrl', 'notaurl', ctx())).rejects.toMatchObject({ code: 'USAGE' })
    await expect(set('platform.userKey', 'x', ctx())).rejects.toThrow(/auth user login/)
    await expect(set('platform.colour', 'x', ctx())).rejects.toThrow(/unknown setting 'platform.colour'/)
    expect((await get('platform', ctx())).value).toEqual({ agentsUrl: 'https://agents.example', userKey: 'parx-…1111' })
    expect((await resolveCredentials(ctx())).values.agentsUrl).toBe('https://agents.example')
  })
})
