/**
 * Source of a module run before a child's own code (`node --import <data: URL>`) that makes every
 * TCP listen of that process bind 127.0.0.1, whatever address the program asks for. alto 0.0.20
 * listens on 0.0.0.0 and takes no host (`fastify.listen({ port, host: "0.0.0.0" })` in its
 * esm/rpc/server.js): anyone who reached the machine could have it bundle zero-fee operations
 * that its executor pays for, until the executor is drained. Unix sockets and inherited handles
 * are left as they are.
 */
const SOURCE = `import net from 'node:net'
const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  const first = args[0]
  if (first !== null && typeof first === 'object') {
    if ('port' in first && first.path === undefined) args[0] = { ...first, host: '127.0.0.1' }
  } else if (first === undefined || typeof first === 'function') {
    args.unshift(0, '127.0.0.1')
  } else if (typeof first === 'number' || /^[0-9]+$/.test(String(first))) {
    if (typeof args[1] === 'string') args[1] = '127.0.0.1'
    else args.splice(1, 0, '127.0.0.1')
  }
  return listen.apply(this, args)
}
`

/** Node flags that load the module above into a child (put them before the child's script). */
export const loopbackOnlyFlags = (): string[] => ['--import', `data:text/javascript,${encodeURIComponent(SOURCE)}`]
