import type { Kysely } from 'kysely';
import type { BffDb } from '../../server/bff/db';
import { insertAttempt, insertSession, type AttemptInsert } from '../../server/bff/sessions/store';

export const SEED_AT = '2026-11-25T10:00:00.000Z';

/** An attempt `id` of session `sessionId`, R$ 10,00 credit, waiting for the gateway. */
export function attemptRow(
  id: string,
  sessionId: string,
  overrides: Partial<AttemptInsert> = {},
): AttemptInsert {
  return {
    id,
    session_id: sessionId,
    method: 'credit',
    status: 'unknown',
    failure_code: null,
    return_code: null,
    payment_id: null,
    nsu: null,
    authorization_code: null,
    subscription_id: null,
    amount: 1000,
    installments: 1,
    created_at: SEED_AT,
    updated_at: SEED_AT,
    canceled_at: null,
    gateway_reference: `ref-${sessionId}`,
    billing_id: null,
    billing_status: null,
    billing_amount: null,
    card_brand: 'visa',
    card_last4: '2701',
    subscription_canceled_json: null,
    trial_days: null,
    ...overrides,
  };
}

/** An open credit session `id` of R$ 10,00, expiring at `expiresAt`, written straight to the store. */
export async function seedOpenSession(
  db: Kysely<BffDb>,
  id: string,
  expiresAt = SEED_AT,
): Promise<void> {
  await insertSession(db, {
    id,
    client_secret_hash: 'f'.repeat(64),
    status: 'open',
    amount: 1000,
    methods: 'credit',
    max_installments: 1,
    reference_transaction: null,
    customer_json: null,
    origin: 'https://shop.example',
    plan_id: null,
    plan_json: null,
    frame_accept: null,
    failure_code: null,
    attempts_used: 0,
    created_at: SEED_AT,
    updated_at: SEED_AT,
    expires_at: expiresAt,
    metadata_json: null,
  });
}

/**
 * An open credit session `id` of R$ 10,00 written straight to the store, with one attempt
 * `pa_<id>` (waiting for the gateway unless `attempt` says otherwise): for tests of the store
 * itself, below the HTTP API.
 */
export async function seedSessionWithAttempt(
  db: Kysely<BffDb>,
  id: string,
  attempt: Partial<AttemptInsert> = {},
): Promise<void> {
  await seedOpenSession(db, id);
  await insertAttempt(db, attemptRow(`pa_${id}`, id, attempt));
}
