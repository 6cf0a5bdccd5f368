/** A set of callbacks; `add` returns the function that removes it again. */
export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>()

  add(listener: (value: T) => void): () => void {
    this.set.add(listener)
    return () => this.set.delete(listener)
  }

  emit(value: T): void {
    // A subscriber's bug must not break the cluster that notified it.
    for (const listener of [...this.set]) {
      try {
        listener(value)
      } catch {
        // ignored on purpose
      }
    }
  }

  get size(): number {
    return this.set.size
  }
}
