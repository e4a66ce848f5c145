// The durable job queue's writes: queuing a turn, claiming the next job, and what a claim holder may do with it.
import { holdsClaim, isClaimable, queueHeads } from '../../core/job-rules.js';
import { newId } from '../../core/ids.js';
import type { ClaimRequest, JobClaim, JobPayload, LivingJob } from '../../core/living-types.js';
import type { LivingProgram } from '../../seams/living-rows.js';
import { rows } from './rows.js';

/**
 * Queues a turn's work. A turn has one job: queuing it again restarts it from extraction with the new payload and
 * a new generation, so work still running on the old request cannot commit.
 *
 * @example
 * ```ts
 * const job = await backend.write(enqueueTurn('run-1', 3, { text: 'Kaël opens the gate.' }, Date.now()));
 * ```
 */
export function* enqueueTurn(saveId: string, turnId: number, payload: JobPayload, now: number): LivingProgram<LivingJob> {
  return yield* rows.upsertJob(saveId, turnId, {
    stage: 'extract', status: 'pending', attempts: 0, payload, subjects: [], claimedBy: null, claimToken: null, claimedAt: null, notBefore: 0, lastError: null, updatedAt: now,
  });
}

/**
 * Claims the next job: per save, the lowest turn not done or failed, if it is pending (and due) or its claim is
 * abandoned; the save whose head job was queued first first. Null when there is nothing to do.
 *
 * @example
 * ```ts
 * const job = await backend.write(claimJob({ workerId: 'host:42:a1', now: Date.now(), leaseMs: 60_000 }));
 * ```
 */
export function* claimJob(request: ClaimRequest): LivingProgram<LivingJob | null> {
  yield* rows.lockClaims();
  const job = queueHeads(yield* rows.openJobs(request.saveId)).find((head) => isClaimable(head, request));
  if (job === undefined) return null;
  const claim = { status: 'running' as const, claimedBy: request.workerId, claimToken: newId(), claimedAt: request.now, updatedAt: request.now };
  yield* rows.updateJob(job.saveId, job.jobId, claim);
  return { ...job, ...claim };
}

/** The job `claim` holds, locked, or null when the claim no longer holds. */
export function* heldJob(claim: JobClaim): LivingProgram<LivingJob | null> {
  const job = yield* rows.lockJob(claim.saveId, claim.jobId);
  return holdsClaim(job, claim) ? job : null;
}

/**
 * Extends a claim's lease; false if the claim no longer holds.
 *
 * @example
 * ```ts
 * await backend.write(renewClaim(claim, Date.now()));
 * ```
 */
export function* renewClaim(claim: JobClaim, now: number): LivingProgram<boolean> {
  if ((yield* heldJob(claim)) === null) return false;
  yield* rows.updateJob(claim.saveId, claim.jobId, { claimedAt: now });
  return true;
}

/**
 * Records a failed attempt: the job goes back to pending, due at `retryAt`, or to failed when `retryAt` is null.
 * False if the claim no longer holds.
 *
 * @example
 * ```ts
 * await backend.write(failStage(claim, 'LLM down', Date.now() + 5000, Date.now()));
 * ```
 */
export function* failStage(claim: JobClaim, error: string, retryAt: number | null, now: number): LivingProgram<boolean> {
  const job = yield* heldJob(claim);
  if (job === null) return false;
  yield* rows.updateJob(claim.saveId, claim.jobId, {
    status: retryAt === null ? 'failed' : 'pending', attempts: job.attempts + 1, notBefore: retryAt ?? 0, lastError: error.slice(0, 2000), claimedBy: null, claimToken: null, claimedAt: null, updatedAt: now,
  });
  return true;
}

/**
 * Gives a claim back untouched (the job is pending again, attempts unchanged).
 *
 * @example
 * ```ts
 * await backend.write(releaseClaim(claim, Date.now()));
 * ```
 */
export function* releaseClaim(claim: JobClaim, now: number): LivingProgram<boolean> {
  if ((yield* heldJob(claim)) === null) return false;
  yield* rows.updateJob(claim.saveId, claim.jobId, { status: 'pending', claimedBy: null, claimToken: null, claimedAt: null, updatedAt: now });
  return true;
}

/**
 * Puts the failed jobs of one save (or of every save) back in the queue, attempts reset; returns how many.
 *
 * @example
 * ```ts
 * await backend.write(retryFailed('run-1', Date.now()));
 * ```
 */
export function* retryFailed(saveId: string | undefined, now: number): LivingProgram<number> {
  return yield* rows.updateFailedJobs(saveId, { status: 'pending', attempts: 0, notBefore: 0, updatedAt: now });
}
