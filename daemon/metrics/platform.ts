import type { PlatformService } from '../platform/service.js'
import type { PlatformRecorder } from './operations.js'
import { withOutcome } from './outcome.js'

type Operations = Pick<PlatformService, 'pay' | 'send' | 'swap'>

/** The platform service with its agents' pay, send and swap counted by outcome (`ok` or the error code). */
export function instrumentPlatform<T extends Operations>(p: T, rec: PlatformRecorder): T {
  return {
    ...p,
    pay: (agent, req) =>
      withOutcome(
        (o) => rec.operation('pay', o),
        () => p.pay(agent, req),
      ),
    send: (agent, body) =>
      withOutcome(
        (o) => rec.operation('send', o),
        () => p.send(agent, body),
      ),
    swap: (agent, body) =>
      withOutcome(
        (o) => rec.operation('swap', o),
        () => p.swap(agent, body),
      ),
  }
}
