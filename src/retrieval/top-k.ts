// Bounded best-k selection: keeps the k highest scores seen, ties going to the lower slot (earlier document).

/**
 * Collects the `limit` best (slot, score) pairs in O(n log limit). Higher scores win; on equal scores the lower
 * slot wins, so results are deterministic and follow insertion order.
 *
 * @example
 * ```ts
 * const top = new TopK(2);
 * top.push(0, 0.5); top.push(1, 0.9); top.push(2, 0.5);
 * top.sorted(); // [{ slot: 1, score: 0.9 }, { slot: 0, score: 0.5 }]
 * ```
 */
export class TopK {
  private readonly slots: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(private readonly limit: number) {
    this.slots = new Int32Array(Math.max(1, limit));
    this.scores = new Float64Array(Math.max(1, limit));
  }

  /** True when (slotA, scoreA) ranks below (slotB, scoreB). */
  private static worse(scoreA: number, slotA: number, scoreB: number, slotB: number): boolean {
    return scoreA < scoreB || (scoreA === scoreB && slotA > slotB);
  }

  /** The score a new entry must beat once full (-Infinity while not full). */
  get threshold(): number {
    return this.size < this.limit ? -Infinity : (this.scores[0] as number);
  }

  /** True once `limit` entries are held. */
  get full(): boolean {
    return this.size >= this.limit;
  }

  push(slot: number, score: number): void {
    if (this.limit <= 0) return;
    if (this.size < this.limit) {
      let index = this.size++;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!TopK.worse(score, slot, this.scores[parent] as number, this.slots[parent] as number)) break;
        this.slots[index] = this.slots[parent] as number;
        this.scores[index] = this.scores[parent] as number;
        index = parent;
      }
      this.slots[index] = slot;
      this.scores[index] = score;
      return;
    }
    if (!TopK.worse(this.scores[0] as number, this.slots[0] as number, score, slot)) return;
    this.siftDown(slot, score);
  }

  private siftDown(slot: number, score: number): void {
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= this.size) break;
      const right = left + 1;
      let child = left;
      if (right < this.size && TopK.worse(this.scores[right] as number, this.slots[right] as number, this.scores[left] as number, this.slots[left] as number)) child = right;
      if (!TopK.worse(this.scores[child] as number, this.slots[child] as number, score, slot)) break;
      this.slots[index] = this.slots[child] as number;
      this.scores[index] = this.scores[child] as number;
      index = child;
    }
    this.slots[index] = slot;
    this.scores[index] = score;
  }

  /** The kept entries, best first. */
  sorted(): { slot: number; score: number }[] {
    const out: { slot: number; score: number }[] = [];
    for (let index = 0; index < this.size; index++) out.push({ slot: this.slots[index] as number, score: this.scores[index] as number });
    out.sort((a, b) => b.score - a.score || a.slot - b.slot);
    return out;
  }
}
