// BackgroundPurge: a store's purge runs its steps one at a time, save by save, until none has rows left; a failed step waits as told or gives its save up.
import { describe, expect, it } from 'vitest';
import { BackgroundPurge } from '../src/stores/background-purge.js';

/** Resolves once `done()` holds, checking every millisecond (at most two seconds). */
async function until(done: () => boolean): Promise<void> {
  for (let tries = 0; tries < 2000 && !done(); tries++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(done()).toBe(true);
}

describe('BackgroundPurge', () => {
  it('runs one step at a time, in the order saves were queued, each save until it has no rows left', async () => {
    const left = new Map<string | null, number>([['a', 3], ['b', 1], [null, 2]]);
    const steps: (string | null)[] = [];
    let running = 0;
    let overlapped = false;
    const purge = new BackgroundPurge({
      async step(saveId) {
        running++;
        overlapped ||= running > 1;
        steps.push(saveId);
        await new Promise((resolve) => setTimeout(resolve, 1));
        const rows = (left.get(saveId) as number) - 1;
        left.set(saveId, rows);
        running--;
        return { pending: rows > 0 };
      },
      retryAfter: () => null,
    });
    purge.schedule('a');
    purge.schedule('b');
    purge.schedule('a'); // already queued: no second entry
    purge.schedule(null);
    await until(() => steps.length === 6 && running === 0);
    expect(steps).toEqual(['a', 'a', 'a', 'b', null, null]);
    expect(overlapped).toBe(false);
    await purge.stop();
  });

  it('waits as retryAfter says after a failed step (told the wait before), and gives a save up on null', async () => {
    const waits: (number | null)[] = [];
    const steps: string[] = [];
    let failures = 3;
    const purge = new BackgroundPurge({
      async step(saveId) {
        steps.push(saveId as string);
        if (saveId === 'broken') throw new Error('always fails');
        if (failures-- > 0) throw new Error('busy');
        return { pending: false };
      },
      retryAfter(error, previousMs) {
        waits.push(previousMs);
        if ((error as Error).message === 'always fails') return null;
        return previousMs === null ? 1 : previousMs * 2;
      },
    });
    purge.schedule('flaky');
    purge.schedule('broken');
    await until(() => steps.filter((save) => save === 'broken').length === 1 && steps.includes('flaky') && failures < 0);
    await purge.stop();
    expect(steps).toEqual(['flaky', 'flaky', 'flaky', 'flaky', 'broken']);
    // Three failures of `flaky` (waits 1, 2, 4 after them), a success (the next failure starts again from null).
    expect(waits).toEqual([null, 1, 2, null]);
  });

  it('runs no step after stop, and stop waits for the step running', async () => {
    let finished = false;
    let calls = 0;
    const purge = new BackgroundPurge({
      async step() {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished = true;
        return { pending: true };
      },
      retryAfter: () => null,
    });
    purge.schedule('a');
    await until(() => calls === 1);
    await purge.stop();
    expect(finished).toBe(true);
    purge.schedule('a');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toBe(1);
  });
});
