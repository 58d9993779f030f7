/**
 * The frame's payment steps (DESIGN §4), by responsibility: `pay.ts` (one attempt per pay),
 * `challenge.ts` (3-D Secure), `subscribe.ts` (plan sessions), `settlement.ts` (what a
 * gateway answer does to the attempt and its session) and `resolver.ts` (unknown outcomes).
 */
export { pay, PAYMENT_PENDING } from './pay';
export { acceptChallengeReturn, cancelChallenge, completeChallenge } from './challenge';
export type { ReturnOutcome } from './challenge';
export { deviceInfoOf, type RequestFacts, type StepAnswer } from './pay-common';
