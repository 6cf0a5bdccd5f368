import type { Approval } from '../../../sdk/platform/approvals.js'
import { needUser, type PlatformDeps, uuidArg } from '../platform-shared.js'

/** Shared by `parx approvals approve` and `deny`: one pending approval, by id, user key only. */
export async function decide(
  id: string | undefined,
  deps: PlatformDeps,
  decision: 'approve' | 'deny',
): Promise<Approval> {
  needUser(deps, `approvals ${decision}`)
  const params = { approvalId: uuidArg(id ?? '', 'the approval id') }
  return decision === 'approve' ? deps.platform.approveApproval({ params }) : deps.platform.denyApproval({ params })
}
