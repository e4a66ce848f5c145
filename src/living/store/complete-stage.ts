// Committing a stage of a turn's job: the stage's work and the job's advance, in one transaction.
import { NEXT_STAGE } from '../../core/job-rules.js';
import type { JobClaim, StageCommit } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { applyConsolidation } from './apply-consolidation.js';
import { heldJob } from './job-claims.js';
import { replaceTurnFacts } from './replace-turn-facts.js';
import { rows } from './rows.js';
import { upsertModel } from './upsert-model.js';

/**
 * Writes a stage's work (extraction: the turn's facts; consolidation: the belief actions; reflection: the models)
 * and advances the job to its next stage, if the claim still holds (same job, generation and token, and the job
 * is at that stage). Returns false, writing nothing, otherwise.
 *
 * @example
 * ```ts
 * await backend.write(completeStage(claim, { stage: 'extract', facts }, Date.now()));
 * ```
 */
export function* completeStage(claim: JobClaim, commit: StageCommit, now: number): LivingProgram<boolean> {
  const job = yield* heldJob(claim);
  if (job === null || job.stage !== commit.stage) return false;
  let subjects = job.subjects;
  if (commit.stage === 'extract') yield* replaceTurnFacts(job.saveId, job.turnId, commit.facts);
  else if (commit.stage === 'consolidate') {
    yield* applyConsolidation(job.saveId, job.turnId, commit.actions, commit.factTurnMap);
    subjects = [...commit.subjects];
  } else {
    for (const model of commit.models) yield* upsertModel(job.saveId, model.subject, model.summary, job.turnId, model.sources);
  }
  const stage = NEXT_STAGE[commit.stage];
  const done = stage === 'done';
  yield* rows.updateJob(job.saveId, job.jobId, {
    stage, status: done ? 'done' : 'running', attempts: 0, lastError: null, subjects, claimedAt: done ? null : now, updatedAt: now,
    ...(done ? { claimedBy: null, claimToken: null } : {}),
  });
  return true;
}
