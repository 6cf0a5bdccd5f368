/**
 * Runs tasks one after another in submission order. Transactions go through one queue so that
 * each is executed and persisted before the next starts, whatever async work a task grows later.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()

  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(task)
    // A failed task must not block the ones behind it; its caller sees the failure.
    this.tail = result.catch(() => undefined)
    return result
  }
}
