import { describe, expect, it } from 'vitest'
import { BaseError } from '../../src/errors/index.js'
import {
  type BudgetState,
  checkBudgets,
  NO_BUDGET,
  NOTHING_SPENT,
  remainingByWindow,
  roomMicros,
  WINDOW_FIELD,
  WINDOW_MS,
  WINDOWS,
} from './budgets.js'

const open: BudgetState = {
  agent: { budget: NO_BUDGET, spent: NOTHING_SPENT },
  user: { budget: NO_BUDGET, spent: NOTHING_SPENT },
}
const M = 1_000_000n

function refusal(state: BudgetState, amount: bigint, opts?: { perPayment?: boolean }) {
  try {
    checkBudgets(state, amount, opts)
  } catch (e) {
    if (e instanceof BaseError) return e.toJSON()
    throw e
  }
  throw new Error('the spend was allowed')
}

describe('budgets per window', () => {
  it('windows roll over an hour, a day, 7 days and 30 days', () => {
    expect(WINDOW_MS).toEqual({ hour: 3_600_000, day: 86_400_000, week: 604_800_000, month: 2_592_000_000 })
  })

  for (const scope of ['agent', 'user'] as const) {
    for (const w of WINDOWS) {
      it(`${scope} ${w}: allowed exactly up to the edge, refused one micro-dollar past it, naming the window and scope`, () => {
        const spent = { ...NOTHING_SPENT, [w]: 7n * M }
        const state: BudgetState = { ...open, [scope]: { budget: { ...NO_BUDGET, [WINDOW_FIELD[w]]: '10' }, spent } }
        expect(() => checkBudgets(state, 3n * M)).not.toThrow()
        const r = refusal(state, 3n * M + 1n)
        expect(r).toMatchObject({
          code: 'LIMIT_EXCEEDED',
          limit: w,
          scope,
          limitUsd: '10',
          amountUsd: '3.000001',
          remainingUsd: '3',
        })
        // The message says what to do next: the command that raises this very limit.
        expect(r.error).toContain(
          scope === 'agent'
            ? `parx agent limits <id> --${w === 'hour' ? 'hourly' : w === 'day' ? 'daily' : `${w}ly`}`
            : 'parx user limits',
        )
        // Other windows' spend does not count in this one.
        const other = WINDOWS.find((x) => x !== w)!
        expect(() =>
          checkBudgets(
            { ...state, [scope]: { ...state[scope], spent: { ...NOTHING_SPENT, [other]: 100n * M } } },
            10n * M,
          ),
        ).not.toThrow()
      })
    }
    it(`${scope} per payment: exactly the limit passes, above it is refused; not applied to escrow`, () => {
      const state: BudgetState = {
        ...open,
        [scope]: { budget: { ...NO_BUDGET, perPaymentUsd: '5' }, spent: NOTHING_SPENT },
      }
      expect(() => checkBudgets(state, 5n * M)).not.toThrow()
      expect(refusal(state, 5n * M + 1n)).toMatchObject({
        limit: 'perPayment',
        scope,
        limitUsd: '5',
        amountUsd: '5.000001',
        remainingUsd: null,
      })
      expect(() => checkBudgets(state, 50n * M, { perPayment: false })).not.toThrow()
    })
  }

  it('the first window that refuses is named, shortest first, agent before user', () => {
    const state: BudgetState = {
      agent: { budget: { ...NO_BUDGET, monthlyUsd: '1' }, spent: NOTHING_SPENT },
      user: { budget: { ...NO_BUDGET, hourlyUsd: '1' }, spent: NOTHING_SPENT },
    }
    expect(refusal(state, 2n * M)).toMatchObject({ limit: 'hour', scope: 'user' })
  })

  it('remaining per window and scope, never below zero; the room is the least of them', () => {
    const state: BudgetState = {
      agent: {
        budget: { ...NO_BUDGET, dailyUsd: '10', weeklyUsd: '20' },
        spent: { hour: M, day: 12n * M, week: 15n * M, month: 15n * M },
      },
      user: {
        budget: { ...NO_BUDGET, monthlyUsd: '100' },
        spent: { hour: M, day: 2n * M, week: 3n * M, month: 40n * M },
      },
    }
    expect(remainingByWindow(state)).toEqual({
      agent: { hour: null, day: 0n, week: 5n * M, month: null },
      user: { hour: null, day: null, week: null, month: 60n * M },
    })
    expect(roomMicros(state)).toBe(0n)
    expect(roomMicros(open)).toBeNull()
  })
})
