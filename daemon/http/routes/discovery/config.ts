import { route } from '../../route.js'

/** Public configuration: what a client needs to talk to this service. Never secrets. */
export default route({
  method: 'GET', path: '/api/config', auth: 'open',
  handler: (c, s) =>
    c.json({
      profile: s.config.profile,
      networks: {
        base: s.base.key,
        radius: s.radius.key,
        solana: s.solana.key,
      },
      chainId: s.base.chainId,
      router: s.base.contracts.router ?? null,
      // Cross-chain (SPEC 2.7): where evm-origin orders lock their input, and who checks attestations.
      escrow: s.base.contracts.escrow ?? null,
      verifier: s.base.contracts.verifier ?? null,
      solver: s.accounts.solver,
      solanaSolver: s.accounts.solanaSolver,
      facilitator: { url: s.urls.facilitator, evmSigner: s.accounts.facilitator, solanaSigner: s.accounts.solanaFacilitator },
      urls: s.urls,
      auth: { enforced: s.config.auth.enforce, header: 'x-api-key' },
      limits: s.config.limits,
    }),
})
