import { silentLogger } from '../../server/lib/logging';
import { MERCHANT_ORIGIN, MERCHANT_SECRET, startBff, type TestBff } from '../support/bff';
import type { FuzzTargets } from './routes';

/**
 * The sandbox and the BFF on loopback, with a session, a pending challenge and tokens, so
 * generated requests reach past authentication. Rate limits are lifted: a 429 would hide the
 * routes' own handling.
 */
export async function startFuzzTargets(): Promise<{
  targets: FuzzTargets;
  close(): Promise<void>;
}> {
  const t: TestBff = await startBff({
    config: { payRateLimitPerMinute: 1_000_000, sessionRateLimitPerMinute: 1_000_000 },
    // Hundreds of thousands of requests: no log lines kept in memory.
    deps: { logger: silentLogger },
  });
  const session = await t.createSession({ amount: 2_500, origin: MERCHANT_ORIGIN });
  const paid = await t.pay(
    session.clientSecret,
    await t.payBody(session.clientSecret, '4000000000002503'),
  );
  const challengeId = (paid.body as { challengeId?: string }).challengeId ?? 'ch_none';
  const targets: FuzzTargets = {
    bffUrl: t.url,
    sandboxUrl: t.sandbox.url,
    merchantSecret: MERCHANT_SECRET,
    clientSecret: session.clientSecret,
    sessionId: session.id,
    challengeId,
    gatewayToken: await t.sandbox.token('gateway'),
    integrationToken: await t.sandbox.token('integration'),
    webhookBasic: `Basic ${Buffer.from('gateway:gateway').toString('base64')}`,
    encryptedCard: await t.encryptCard(session.clientSecret, '4000000000002701'),
  };
  return { targets, close: () => t.close() };
}
