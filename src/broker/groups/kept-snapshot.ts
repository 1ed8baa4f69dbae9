/**
 * What __consumer_offsets holds of a KIP-848, share or streams group: the
 * group's last snapshot written as records. A group writes the difference
 * between that and its snapshot after each change, and nothing when the
 * change left the snapshot as it was (compared by its JSON).
 */
export class KeptSnapshot<S> {
  private value: S | null = null
  private text = ''

  /** The snapshot last kept (null before the group's first change). */
  get last(): S | null {
    return this.value
  }

  /** What the log already holds (a replay): kept without a change. */
  restore(s: S): void {
    this.value = s
    this.text = JSON.stringify(s)
  }

  /** Keeps `s`; the snapshot it replaces when it differs from it, else undefined (nothing to write). */
  replace(s: S): { previous: S | null } | undefined {
    const text = JSON.stringify(s)
    if (text === this.text) return undefined
    const previous = this.value
    this.value = s
    this.text = text
    return { previous }
  }
}
