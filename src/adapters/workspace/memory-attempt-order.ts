/**
 * Which of the memory workspace's attempts to forget: ids in the order they were prepared, read from `oldest` on
 * instead of iterating the attempts Map from its start, where every forgotten attempt leaves a hole the iteration
 * steps over (up to `retain` of them per tick).
 */
export class AttemptOrder {
  private readonly order: string[] = [];
  private oldest = 0;

  add(id: string): void {
    this.order.push(id);
  }

  /** Deletes the oldest finished attempts until `retain` are left; active ones stay, first in line. */
  forgetOldest(attempts: Map<string, { status: string }>, retain: number): void {
    const passed: string[] = [];
    let index = this.oldest;
    while (attempts.size > retain && index < this.order.length) {
      const id = this.order[index++]!;
      const attempt = attempts.get(id);
      if (attempt?.status === 'active') passed.push(id);
      else if (attempt) attempts.delete(id);
    }
    // The active attempts stepped over go back, in their order, just before the first one not reached.
    this.oldest = index - passed.length;
    for (let position = 0; position < passed.length; position++) this.order[this.oldest + position] = passed[position]!;
    if (this.oldest > 1_024 && this.oldest * 2 > this.order.length) {
      this.order.splice(0, this.oldest);
      this.oldest = 0;
    }
  }
}
