// The rules of the durable job queue, shared by every store adapter: which job may be claimed, who holds it, what comes next.
import type { ClaimRequest, JobClaim, JobStage, LivingJob, StageCommit } from './living-types.js';

/** The stage after each stage. */
export const NEXT_STAGE: Record<StageCommit['stage'], JobStage> = { extract: 'consolidate', consolidate: 'reflect', reflect: 'done' };

/**
 * True when `job` (the head of its save's queue) may be claimed now: pending and due, or running under a claim that
 * is abandoned (lease expired, or held by a worker known to be dead).
 *
 * @example
 * ```ts
 * isClaimable(job, { workerId: 'w', now: Date.now(), leaseMs: 60_000 });
 * ```
 */
export function isClaimable(job: LivingJob, request: ClaimRequest): boolean {
  if (job.status === 'pending') return job.notBefore <= request.now;
  if (job.status !== 'running') return false;
  if (job.claimedAt === null || job.claimedAt + request.leaseMs <= request.now) return true;
  return job.claimedBy !== null && (request.deadWorkers ?? []).includes(job.claimedBy);
}

/** True when `claim` still holds `job`: same job, generation and token, and the job is running. */
export function holdsClaim(job: LivingJob | undefined, claim: JobClaim): job is LivingJob {
  return job !== undefined && job.status === 'running' && job.generation === claim.generation && job.claimToken === claim.claimToken;
}

/** Heads of the queue: per save, the job of the lowest turn among those pending or running. */
export function queueHeads(jobs: Iterable<LivingJob>): LivingJob[] {
  const heads = new Map<string, LivingJob>();
  for (const job of jobs) {
    if (job.status !== 'pending' && job.status !== 'running') continue;
    const head = heads.get(job.saveId);
    if (head === undefined || job.turnId < head.turnId) heads.set(job.saveId, job);
  }
  return [...heads.values()].sort((a, b) => a.jobId - b.jobId);
}

/**
 * A job as a fork copies it: a running job is pending again and unclaimed, so the branch's worker finishes it.
 *
 * @example
 * ```ts
 * forkedJob(runningJob).status; // 'pending'
 * ```
 */
export function forkedJob(job: LivingJob): LivingJob {
  return { ...job, status: job.status === 'running' ? 'pending' : job.status, claimedBy: null, claimToken: null, claimedAt: null };
}
