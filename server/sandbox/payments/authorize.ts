import type {
  CardBrand,
  PaymentAuthorization,
  Split,
  ThreeDs,
} from '../../gateway/schemas/payments';
import { inOneTransaction, isUniqueViolation } from '../../lib/db';
import { randomIdBytes } from '../../lib/ids';
import type { ErrorItem } from '../../lib/http';
import type { SandboxClient } from '../clients';
import type { SandboxContext } from '../context';
import { insertPayment, type StoredPayment } from './store';
import { RETURN_DESCRIPTIONS, UNKNOWN_ERROR_DESCRIPTION, type ReturnCode } from './test-cards';

export interface AuthorizationInput {
  client: SandboxClient;
  transactionType: 'credit' | 'debit';
  productType: string;
  installments: number;
  amount: number;
  brand: CardBrand;
  maskedNumber: string;
  referenceTransaction: string | null;
  configSplit: Split[] | null;
  billingId: string | null;
  returnCode: ReturnCode;
  /** A paymentId given out before the authorization (a 3DS challenge's pending answer). */
  paymentId?: string | undefined;
  /** `urlCallBack` of the request: told of every status change of the payment. */
  urlCallBack?: string | null | undefined;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Six upper-case letters and digits. */
export function authorizationCode(buf: Uint8Array = randomIdBytes(6)): string {
  let out = '';
  for (let i = 0; i < 6; i++) out += ALNUM[buf[i]! % ALNUM.length];
  return out;
}

/** `length` decimal digits, the first not zero, from `length` random bytes at `offset`. */
function digits(buf: Uint8Array, offset: number, length: number): string {
  let out = String(1 + (buf[offset]! % 9));
  for (let i = 1; i < length; i++) out += String(buf[offset + i]! % 10);
  return out;
}

const NSU_MAX = 999_999_999_999;

interface NsuSequence {
  next: number | null;
  loading: Promise<number> | null;
}
const nsuSequences = new WeakMap<SandboxContext, NsuSequence>();

/**
 * The next NSU, the spec's "unique transaction sequential number": 12 digits counting up from
 * the highest NSU stored (read once per sandbox, again after a reset). Gaps are possible
 * (an authorization rolled back keeps its number used), repeats are not (a unique index).
 * Past 12 digits it falls back to random numbers.
 */
async function nextNsu(ctx: SandboxContext): Promise<string> {
  let seq = nsuSequences.get(ctx);
  if (!seq) {
    const fresh: NsuSequence = { next: null, loading: null };
    ctx.onReset(() => {
      fresh.next = null;
      fresh.loading = null;
    });
    nsuSequences.set(ctx, fresh);
    seq = fresh;
  }
  if (seq.next === null) {
    seq.loading ??= ctx.db
      .selectFrom('payments')
      .select((eb) => eb.fn.max('nsu').as('max'))
      .executeTakeFirst()
      .then((row) => (row?.max && /^\d{12}$/.test(row.max) ? Number(row.max) : 0) + 1);
    const first = await seq.loading;
    seq.next ??= first;
  }
  const n = seq.next!;
  if (n > NSU_MAX) return digits(randomIdBytes(12), 0, 12);
  seq.next = n + 1;
  return String(n).padStart(12, '0');
}

const SUFFIX_LIMIT = 10_000_000;
/** The last paymentId's milliseconds and suffix: ids of one instant keep growing. */
let lastMillis = '';
let lastSuffix = -1;

/**
 * A paymentId (TID): 20 digits, the sandbox clock's epoch milliseconds (13 digits) then 7
 * more: random for the first id of a millisecond, then growing by a random step of 1–16 (the
 * business clock stands still while the billing engine charges a whole cycle, so thousands of
 * ids share one millisecond). Ids that grow keep index inserts at the end of their B-trees;
 * random suffixes within one instant made each batch touch pages all over that instant's range.
 */
export function newPaymentId(ctx: SandboxContext, buf: Uint8Array = randomIdBytes(7)): string {
  let millis = String(ctx.clock.now().getTime());
  millis = millis.length >= 13 ? millis.slice(-13) : millis.padStart(13, '1');
  let suffix = lastMillis === millis ? lastSuffix + 1 + (buf[0]! % 16) : -1;
  if (suffix < 0 || suffix >= SUFFIX_LIMIT) {
    // A fresh start in the lower half leaves room for the instant's later ids.
    suffix = 0;
    for (let i = 0; i < 7; i++) suffix = suffix * 10 + (buf[i]! % 10);
    suffix %= SUFFIX_LIMIT / 2;
  }
  lastMillis = millis;
  lastSuffix = suffix;
  return millis + String(suffix).padStart(7, '0');
}

/** paymentId (TID, 20 digits), NSU (12, sequential) and authorization code. */
export async function newIdentifiers(
  ctx: SandboxContext,
): Promise<{ paymentId: string; nsu: string; authorizationCode: string }> {
  const buf = randomIdBytes(13);
  return {
    paymentId: newPaymentId(ctx, buf.subarray(0, 7)),
    nsu: await nextNsu(ctx),
    authorizationCode: authorizationCode(buf.subarray(7)),
  };
}

/**
 * Records an answered authorization (approved or declined) and, when approved, emits
 * `payment.approved` before returning. paymentId (TID) is 20 digits, NSU 12 digits; a declined
 * payment has no authorization code (empty string).
 */
export async function recordAuthorization(
  ctx: SandboxContext,
  input: AuthorizationInput,
): Promise<StoredPayment> {
  const approved = input.returnCode === '00';
  for (let attempt = 0; ; attempt++) {
    const ids = await newIdentifiers(ctx);
    const payment: StoredPayment = {
      paymentId: input.paymentId ?? ids.paymentId,
      nsu: ids.nsu,
      authorizationCode: approved ? ids.authorizationCode : '',
      userName: input.client.userName,
      accountNumber: input.client.accountNumber,
      merchantId: input.client.merchantId,
      transactionType: input.transactionType,
      productType: input.productType,
      installments: input.installments,
      amount: input.amount,
      brand: input.brand,
      maskedNumber: input.maskedNumber,
      referenceTransaction: input.referenceTransaction,
      configSplit: input.configSplit,
      billingId: input.billingId,
      authorizedAt: ctx.clock.now().toISOString(),
      status: approved ? 'approved' : 'declined',
      returnCode: input.returnCode,
      description: RETURN_DESCRIPTIONS[input.returnCode],
      canceledAt: null,
      urlCallBack: input.urlCallBack ?? null,
    };
    try {
      // The payment and what the handlers write for it (ledger, outbox) commit together:
      // one SQLite commit per payment instead of one per statement.
      await inOneTransaction(ctx.db, async () => {
        await insertPayment(ctx.db, payment);
        if (approved) await ctx.events.emit({ type: 'payment.approved', payment });
        else await ctx.events.emit({ type: 'payment.declined', payment });
      });
    } catch (err) {
      if (isUniqueViolation(err) && attempt < 3) continue;
      throw err;
    }
    return payment;
  }
}

/** The `paymentAuthorization` object of an answer. */
export function authorizationBody(p: StoredPayment): PaymentAuthorization {
  return {
    returnCode: p.returnCode,
    description: p.description,
    paymentId: p.paymentId,
    authorizationCode: p.authorizationCode,
    ...(p.referenceTransaction ? { orderNumber: p.referenceTransaction } : {}),
    amount: p.amount,
    releaseAt: p.authorizedAt,
    nsu: p.nsu,
  };
}

export const THREE_DS_VERSION = '2.2.0';

/** ECI of a fully authenticated (`ok`) or failed authentication, by brand. */
function eci(brand: CardBrand, ok: boolean): string {
  if (brand === 'mastercard') return ok ? '02' : '00';
  return ok ? '05' : '07';
}

export function threeDsSuccess(brand: CardBrand): ThreeDs {
  return {
    status: 'AUTHENTICATION_SUCCESSFUL',
    threeDsVersion: THREE_DS_VERSION,
    eci: eci(brand, true),
    paresStatus: 'Y',
    threeDsStatus: 'Y',
    veresEnrolled: 'Y',
  };
}

/** The spec's 3DS failure: tag `3DS Fail`, description listing the authentication facts. */
export function threeDsFailItems(brand: CardBrand, threeDsStatus: 'N' | 'U' = 'N'): ErrorItem[] {
  return [
    {
      tag: '3DS Fail',
      description:
        `3DS authentication failed: eci=${eci(brand, false)}, threeDsVersion=${THREE_DS_VERSION}, ` +
        `threeDsStatus=${threeDsStatus}, veresEnrolled=Y`,
    },
  ];
}

export const INTERNAL_ERROR_ITEMS: ErrorItem[] = [
  { tag: '', description: UNKNOWN_ERROR_DESCRIPTION },
];
