// The deterministic rules of living memory: trends, missions, affected subjects, the beliefs a batch is shown.
import { describe, expect, it } from 'vitest';
import type { Belief, ConsolidationAction } from '../src/core/living-types.js';
import { beliefTrend, computeTrend } from '../src/living/compute-trend.js';
import { selectBeliefsForBatch } from '../src/living/consolidate.js';
import { beliefMissionsFromValue, getBeliefMissions, getUniverseMission, missionFor, missionsToText, parseMissionsText, setBeliefMissions, setUniverseMission } from '../src/living/missions.js';
import { affectedSubjects } from '../src/living/reflect.js';
import { openInMemoryStore } from '../src/stores/memory/index.js';

describe('computeTrend (recent window: ages 0-14; old window: ages 15-44; density ratio 1.5 / 0.5)', () => {
  it('is STABLE when the trend is unknown: no sources, no current turn, or only sources after now', () => {
    expect(computeTrend([], 10)).toBe('STABLE');
    expect(computeTrend([3, 4], null)).toBe('STABLE');
    expect(computeTrend([3, 4], undefined)).toBe('STABLE');
    expect(computeTrend([101], 100)).toBe('STABLE');
  });

  it('is NEW when every source is in the 15 turns ending now', () => {
    expect(computeTrend([100], 100)).toBe('NEW');
    expect(computeTrend([86, 90, 100], 100)).toBe('NEW');
    expect(computeTrend([0, 1, 2], 5)).toBe('NEW');
  });

  it('is STALE when no source is recent, however many old ones', () => {
    expect(computeTrend([85], 100)).toBe('STALE');
    expect(computeTrend([10, 20, 60, 70, 80, 85], 100)).toBe('STALE');
  });

  it('compares evidence per turn: recent / 15 against old / 30', () => {
    expect(computeTrend([85, 100], 100)).toBe('STRENGTHENING'); // (1/15) / (1/30) = 2
    expect(computeTrend([56, 60, 70, 80, 90, 95, 100], 100)).toBe('STABLE'); // 3 recent, 4 old: exactly 1.5 is not above it
    expect(computeTrend([56, 60, 70, 80, 90, 95, 99, 100], 100)).toBe('STRENGTHENING'); // 4 vs 4: 2
    expect(computeTrend([56, 60, 70, 80, 100], 100)).toBe('STABLE'); // 1 vs 4: exactly 0.5 is not below it
    expect(computeTrend([56, 60, 65, 70, 80, 100], 100)).toBe('WEAKENING'); // 1 vs 5: 0.4
  });

  it('leaves sources older than 45 turns out of the ratio (but not out of NEW and STALE)', () => {
    expect(computeTrend([40, 100], 100)).toBe('STRENGTHENING'); // old window empty: infinite ratio
    expect(computeTrend([10, 20, 30, 40, 50, 100], 100)).toBe('STRENGTHENING');
    expect(computeTrend([40], 100)).toBe('STALE');
  });

  it('takes other windows, and refuses inconsistent ones', () => {
    expect(computeTrend([5, 10], 10, { recentTurns: 5, oldTurns: 10 })).toBe('STABLE'); // (1/5) / (1/5) = 1
    expect(computeTrend([5, 9, 10], 10, { recentTurns: 5, oldTurns: 10 })).toBe('STRENGTHENING'); // (2/5) / (1/5) = 2
    expect(() => computeTrend([1], 2, { recentTurns: 10, oldTurns: 10 })).toThrow(/1 <= recentTurns < oldTurns/);
    expect(beliefTrend({ sources: [{ factId: 1, turnId: 9 }] }, 10)).toBe('NEW');
  });
});

describe('missions', () => {
  it('parses "Name: mission" lines: the first colon splits, blank and malformed lines dropped', () => {
    expect(parseMissionsText('Rowan: remembers every debt\n\n  Mira :  notes: everything, always  \nno colon here\n: no name\nEmpty:   \r\nRowan: forgives nothing')).toEqual({
      Rowan: 'forgives nothing',
      Mira: 'notes: everything, always',
    });
    expect(parseMissionsText('')).toEqual({});
    expect(missionsToText({ Rowan: 'remembers every debt', Mira: 'notes: everything' })).toBe('Rowan: remembers every debt\nMira: notes: everything');
    expect(parseMissionsText(missionsToText({ A: 'x: y', B: 'z' }))).toEqual({ A: 'x: y', B: 'z' });
  });

  it('reads stored values tolerantly', () => {
    expect(beliefMissionsFromValue('{"Rowan": "debts", "Bad": 3, "": "nameless", "Blank": "  "}')).toEqual({ Rowan: 'debts' });
    for (const raw of ['', '   ', 'not json', '[1,2]', 'null', '"text"', null, undefined]) expect(beliefMissionsFromValue(raw)).toEqual({});
    expect(missionFor({ Kaël: 'remembers kindness' }, 'KAËL')).toBe('remembers kindness');
    expect(missionFor({ Kaël: 'x' }, 'Rowan')).toBeUndefined();
  });

  it('stores the universe mission and per-character missions with the world', async () => {
    const store = openInMemoryStore();
    expect(await getUniverseMission(store)).toBe('');
    expect(await getBeliefMissions(store)).toEqual({});
    await setUniverseMission(store, '  Remember betrayals. ');
    await setBeliefMissions(store, { Rowan: 'debts', Nobody: '' });
    expect(await getUniverseMission(store)).toBe('Remember betrayals.');
    expect(await getBeliefMissions(store)).toEqual({ Rowan: 'debts' });
    await store.setMeta('living.belief_missions', '{broken');
    expect(await getBeliefMissions(store)).toEqual({});
  });
});

describe('affectedSubjects', () => {
  it('lists the subjects of CREATE and UPDATE actions in order, case-insensitively distinct, the world included', () => {
    const actions: ConsolidationAction[] = [
      { kind: 'CREATE', statement: 'x', subject: 'Rowan', beliefId: null, sourceFactIds: [] },
      { kind: 'DELETE', statement: '', subject: 'Mira', beliefId: 3, sourceFactIds: [] },
      { kind: 'UPDATE', statement: 'y', subject: 'ROWAN', beliefId: 4, sourceFactIds: [] },
      { kind: 'CREATE', statement: 'z', subject: '', beliefId: null, sourceFactIds: [] },
      { kind: 'UPDATE', statement: 'w', subject: 'Kaël', beliefId: 5, sourceFactIds: [] },
    ];
    expect(affectedSubjects(actions)).toEqual(['Rowan', '', 'Kaël']);
    expect(affectedSubjects([])).toEqual([]);
  });
});

describe('selectBeliefsForBatch', () => {
  const belief = (beliefId: number, subject: string, updatedTurnId: number, deletedTurnId: number | null = null): Belief =>
    ({ beliefId, statement: `b${beliefId}`, subject, proofCount: 1, sources: [], history: [], createdTurnId: 0, updatedTurnId, stale: false, deletedTurnId });

  it('shows the batch\'s characters first, then the most recent, at most the cap', () => {
    const beliefs = [belief(1, 'Rowan', 1), belief(2, 'Mira', 9), belief(3, 'rowan', 5), belief(4, '', 8), belief(5, 'Kaël', 7), belief(6, 'Mira', 10, 10)];
    expect(selectBeliefsForBatch(beliefs, ['Rowan', 'Kaël'], 4).map((chosen) => chosen.beliefId)).toEqual([5, 3, 1, 2]);
    expect(selectBeliefsForBatch(beliefs, [], 0).map((chosen) => chosen.beliefId)).toEqual([2, 4, 5, 3, 1]);
    const many = Array.from({ length: 40 }, (_, index) => belief(index + 1, index % 2 === 0 ? 'Rowan' : 'Mira', index));
    const shown = selectBeliefsForBatch(many, ['Mira']);
    expect(shown).toHaveLength(24);
    expect(shown.slice(0, 20).every((chosen) => chosen.subject === 'Mira')).toBe(true);
    expect(shown.slice(20).map((chosen) => chosen.updatedTurnId)).toEqual([38, 36, 34, 32]);
  });
});
