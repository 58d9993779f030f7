import type { Migration } from '../../lib/db';
import type { PaymentAuthorization } from '../../gateway/schemas/payments';
import { newPaymentId } from '../payments/authorize';
import type { SandboxContext } from '../context';

/**
 * The payment a 3DS challenge waits to authorize. The spec says every 200 of
 * `POST /v1/payments/3ds` carries `paymentAuthorization` and `threeDs`, so a challenge answer
 * names its payment before it is authorized: the paymentId given here is the one validate
 * authorizes under (DESIGN §5). Kept beside the challenge, keyed by its authentication id.
 */
export interface PendingPaymentsTables {
  three_ds_pending_payments: {
    authentication_id: string;
    payment_id: string;
    created_at: string;
  };
}

export const pendingPaymentsMigrations: Migration[] = [
  {
    name: 'three_ds_0002_pending_payments',
    async up(db) {
      await db.schema
        .createTable('three_ds_pending_payments')
        .addColumn('authentication_id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('payment_id', 'varchar(36)', (c) => c.notNull().unique())
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .execute();
    },
  },
];

/** `paymentAuthorization.status` of a payment that waits for its 3DS authentication. */
export const WAITING_FOR_AUTHENTICATION = 'PENDING_AUTHENTICATION';
export const WAITING_DESCRIPTION = 'Aguardando autenticação 3DS';

/** Gives the challenge its paymentId and answers the waiting `paymentAuthorization`. */
export async function reservePendingPayment(
  ctx: SandboxContext,
  input: { authenticationId: string; amount: number; referenceTransaction: string | null },
): Promise<PaymentAuthorization> {
  const now = ctx.clock.now().toISOString();
  const paymentId = newPaymentId(ctx);
  await ctx.db
    .insertInto('three_ds_pending_payments')
    .values({ authentication_id: input.authenticationId, payment_id: paymentId, created_at: now })
    .execute();
  return {
    // No authorizer answer yet: no return code, no authorization code.
    returnCode: '',
    description: WAITING_DESCRIPTION,
    paymentId,
    authorizationCode: '',
    ...(input.referenceTransaction ? { orderNumber: input.referenceTransaction } : {}),
    amount: input.amount,
    releaseAt: now,
    status: WAITING_FOR_AUTHENTICATION,
  };
}

/** The paymentId a challenge was given, or undefined (challenges made before it existed). */
export async function pendingPaymentId(
  ctx: SandboxContext,
  authenticationId: string,
): Promise<string | undefined> {
  const row = await ctx.db
    .selectFrom('three_ds_pending_payments')
    .select('payment_id')
    .where('authentication_id', '=', authenticationId)
    .executeTakeFirst();
  return row?.payment_id;
}
