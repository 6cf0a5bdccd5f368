import { route } from '../../route.js'

/**
 * A consistent backup of this daemon's data dir (SQLite store, embedded chain states, keys),
 * written inside the data dir; `parx backup --to FILE` calls this and moves the file (docs/operations.md
 * "Backups"). A PostgreSQL store answers BACKUP_UNSUPPORTED: pg_dump backs it up.
 */
export default route({
  method: 'POST',
  path: '/api/operator/backup',
  auth: 'operator',
  surface: 'backup',
  handler: async (c, s) => c.json(await s.create()),
})
