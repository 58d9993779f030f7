import { resolveUnknownAttempts } from '../../server/bff/payments/resolver';
import { DEFAULT_CLIENT } from '../../server/sandbox/clients';
import { MERCHANT_SECRET, type TestBff } from './bff';
import { LATE_ANSWER_MS, payTimingOut } from './slow-bff';

/** What the resolver suites on a slow BFF (`slowBffForSuite`) share. */
export function resolverSuite(bffs: { readonly slow: TestBff; readonly helper: TestBff }) {
  const merchant = { authorization: `Bearer ${MERCHANT_SECRET}` };
  /** One resolver round, each pending attempt looked up at once. */
  const resolve = () =>
    resolveUnknownAttempts(bffs.slow.bff.ctx, {
      accountNumber: DEFAULT_CLIENT.accountNumber,
      settleAfterMs: 0,
    });
  /** The session as its merchant reads it. */
  const detail = async (id: string) =>
    (await bffs.slow.request('GET', `/v1/checkout-sessions/${id}`, { headers: merchant })).body as {
      status: string;
      attempts: { id: string; status: string; failureCode: string | null }[];
    };
  /**
   * A credit payment the sandbox finishes after the BFF gave up on it: the attempt is unknown.
   * `number` decides whether the sandbox charged it.
   */
  async function lostPayment(amount: number, number = '4000000000002701') {
    const s = await bffs.slow.createSession({ amount });
    await payTimingOut(bffs, s.clientSecret, number, '/v1/payments');
    await new Promise((r) => setTimeout(r, LATE_ANSWER_MS));
    const attemptId = (await detail(s.id)).attempts[0]!.id;
    return { sessionId: s.id, secret: s.clientSecret, attemptId };
  }
  return { merchant, resolve, detail, lostPayment };
}
