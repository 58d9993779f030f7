import { describe, expect, it } from 'vitest';
import { orderNumberOf, paymentReferenceOf } from '../../../server/bff/payments/pay-common';
import type { SessionRow } from '../../../server/bff/sessions/store';

const session = (reference_transaction: string | null) => ({ reference_transaction }) as SessionRow;
const attemptId = 'pa_AbCdEfGhIjKlMnOp'; // prefixedId('pa', 12): 19 characters

describe('the reference sent to the gateway names one attempt', () => {
  it('keeps the merchant reference readable, then the attempt id', () => {
    expect(paymentReferenceOf(session('order-77'), attemptId)).toBe(`order-77/${attemptId}`);
  });

  it('is the attempt id alone without a merchant reference', () => {
    expect(paymentReferenceOf(session(null), attemptId)).toBe(attemptId);
  });

  it('stays within the spec’s 50 characters, cutting the merchant reference', () => {
    const long = 'R'.repeat(50);
    const ref = paymentReferenceOf(session(long), attemptId);
    expect(ref).toHaveLength(50);
    expect(ref.endsWith(`/${attemptId}`)).toBe(true);
    expect(ref.startsWith('R'.repeat(30))).toBe(true);
  });

  it('cuts between characters, never inside an emoji (a UTF-8 store would mangle half of one)', () => {
    // 11 units, then 16 emoji of 2 units each: the 30 units left cut through the tenth.
    const ref = paymentReferenceOf(session(`pedido/ção/${'😀'.repeat(16)}`), attemptId);
    expect(ref).toBe(`pedido/ção/${'😀'.repeat(9)}/${attemptId}`);
    expect(Buffer.from(ref, 'utf8').toString('utf8')).toBe(ref);
  });

  it('two attempts with the same merchant reference get different references', () => {
    expect(paymentReferenceOf(session('same'), 'pa_aaaaaaaaaaaaaaaa')).not.toBe(
      paymentReferenceOf(session('same'), 'pa_bbbbbbbbbbbbbbbb'),
    );
  });

  it('a subscription order number is the attempt id’s last ten characters', () => {
    expect(orderNumberOf(attemptId)).toBe('GhIjKlMnOp');
    expect(orderNumberOf(attemptId)).toHaveLength(10);
  });
});
