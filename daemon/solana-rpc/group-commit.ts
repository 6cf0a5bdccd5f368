import type { ChainDb } from './chain-db.js'

/** What a task that changed the cluster leaves behind: how to take it back, and what to tell once it is on disk. */
export type Landed = { undo(): void; announce(): void }

type Task<T> = { run: (landed: Landed[]) => T; resolve: (value: T) => void; reject: (e: unknown) => void }

/**
 * Runs the cluster's writing tasks one after another, in submission order, and commits them in
 * groups: the tasks that arrive while the event loop is busy run together, synchronously, in one
 * SQLite transaction (each in its own savepoint, so one that fails leaves the others), and only
 * after that commit does anyone hear about them: callers' promises resolve and subscribers are
 * told. Nothing else runs in between, so no reader sees a state that is not yet on disk, and a
 * commit that fails takes every task of its group back out of memory too. One commit per group
 * instead of one per transaction: the pages transactions share (the history's indexes, the
 * solver's accounts) go to the WAL once.
 */
export class GroupCommit {
  // biome-ignore lint/suspicious/noExplicitAny: tasks of any result type share one queue; each caller keeps its own T
  private pending: Task<any>[] = []
  private scheduled = false

  constructor(private readonly db: ChainDb) {}

  /** `task` pushes a `Landed` for each change it makes in memory, before writing it to `db`. */
  run<T>(task: (landed: Landed[]) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run: task, resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        // After the I/O already read: requests that arrived together commit together.
        setImmediate(() => this.flush())
      }
    })
  }

  private flush(): void {
    this.scheduled = false
    const tasks = this.pending
    this.pending = []
    const landed: Landed[] = []
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = []
    try {
      // IMMEDIATE: the write lock is taken at BEGIN, where SQLite waits for it (busy_timeout). A
      // deferred BEGIN reads first and upgrades at the first write, and an upgrade that meets another
      // connection's write or a RESTART checkpoint on parx.db fails at once with "database is locked"
      // (seen under bench sol's 20 clients: sends answered "Internal error").
      this.db
        .transaction(() => {
          for (const task of tasks) {
            const own: Landed[] = []
            try {
              outcomes.push({ ok: true, value: this.db.transaction(() => task.run(own))() })
              landed.push(...own)
            } catch (error) {
              // Its savepoint is rolled back: what it changed in memory goes too.
              for (const l of own.reverse()) l.undo()
              outcomes.push({ ok: false, error })
            }
          }
        })
        .immediate()
    } catch (error) {
      // Nothing of this group is on disk: nothing of it stays in memory, newest first.
      for (const l of landed.reverse()) l.undo()
      for (const task of tasks) task.reject(error)
      return
    }
    for (const l of landed) l.announce()
    tasks.forEach((task, i) => {
      const o = outcomes[i]!
      if (o.ok) task.resolve(o.value)
      else task.reject(o.error)
    })
  }
}
