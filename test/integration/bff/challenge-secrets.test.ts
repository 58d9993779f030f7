import { describe, expect, it } from 'vitest';
import type { PayResult } from '../../../server/bff/checkout-api';
import { postForm, readForm, startBff } from '../../support/bff';
import { answerAtAcs, openLauncher, type Challenge } from '../../support/challenge';
import { startChallenge, t, useChallengeBff } from '../../support/challenge-bff';

// What a 3-D Secure challenge keeps secret: the launcher's per-challenge secret (stored as a
// hash), the kept answer of a challenged pay, and the PaRes once used.
useChallengeBff();

describe('3DS challenge', () => {
  it('the launcher opens only with the per-challenge secret; the BFF stores only its hash', async () => {
    const { challenge } = await startChallenge();
    const url = new URL(challenge.challengeUrl);
    const secret = url.hash.slice(1);
    const target = url.origin + url.pathname;
    for (const fields of [{}, { MD: 'f'.repeat(40) }, { MD: secret.slice(0, 39) }]) {
      const refused = await postForm(target, fields);
      expect(refused.status).toBe(403);
      expect(refused.text).not.toMatch(/PaReq|TermUrl/);
    }
    const row = await t.bff.ctx.db
      .selectFrom('challenges')
      .select(['md', 'pareq'])
      .where('id', '=', challenge.challengeId)
      .executeTakeFirstOrThrow();
    expect(row.md).not.toBe(secret);
    expect(row.md).toMatch(/^[0-9a-f]{64}$/);
    // Without the secret nobody can burn the attempt with a junk PaRes at the TermUrl.
    const junk = await postForm(`${target}/return`, { PaRes: 'junk', MD: 'f'.repeat(40) });
    expect(junk.status).toBe(403);
    expect(junk.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const launcher = await openLauncher(challenge.challengeUrl);
    expect(readForm(launcher.text, t.url).fields).toMatchObject({ MD: secret, PaReq: row.pareq });
    // The secret never reaches a log (it is in no URL the BFF sees).
    expect(t.logs.join('\n')).not.toContain(secret);
  });

  it('the kept answer of a challenged pay holds no secret; its replay gets it again', async () => {
    const s = await t.createSession({ amount: 7_800 });
    const body = await t.payBody(s.clientSecret, '4000000000002503', { challengeWindowSize: '02' });
    const send = () =>
      t.frame(s.clientSecret, 'POST', '/checkout/api/pay', {
        body,
        headers: { 'idempotency-key': 'idem-challenge-kept-1' },
      });
    const first = await send();
    const challenge = first.body as Challenge;
    expect(challenge.status).toBe('challenge');
    const secret = new URL(challenge.challengeUrl).hash.slice(1);
    expect(secret).toMatch(/^[0-9a-f]{40}$/);
    const kept = await t.bff.ctx.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('session_id', '=', s.id)
      .execute();
    expect(kept).toHaveLength(1);
    expect(kept[0]!.response_body).toContain(challenge.challengeId);
    expect(kept[0]!.response_body).not.toContain(secret);
    // The same request again (a lost answer): the same challenge, the secret with it.
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('PaRes at rest', () => {
  it('leaves no copy of a used PaRes in the SQLite files (main, WAL, shm)', async () => {
    const { mkdtempSync, readdirSync, readFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'bff-pares-'));
    const onDisk = await startBff({
      sandbox: t.sandbox,
      dbUrl: join(dir, 'bff.sqlite'),
      config: { payRateLimitPerMinute: 10_000 },
    });
    /** Whether any of the store's files holds (the start of) `pares`. */
    const onFile = (pares: string) =>
      readdirSync(dir)
        .filter((f) => f.startsWith('bff.sqlite'))
        .some((f) => readFileSync(join(dir, f)).includes(Buffer.from(pares.slice(0, 48))));
    /** A session whose challenge the bank has answered: its PaRes stored. */
    const answered = async () => {
      const s = await onDisk.createSession({ amount: 7_500 });
      const paid = await onDisk.pay(
        s.clientSecret,
        await onDisk.payBody(s.clientSecret, '4000000000002503'),
      );
      const challenge = paid.body as Challenge;
      const acsAnswer = await answerAtAcs(challenge.challengeUrl, '1234');
      expect((await postForm(acsAnswer.action, acsAnswer.fields)).status).toBe(200);
      const pares = acsAnswer.fields.PaRes!;
      // Stored while the challenge waits for the validate call (proves the scan can see it).
      expect(onFile(pares)).toBe(true);
      return { s, challenge, pares };
    };
    try {
      const used = await answered();
      const done = await onDisk.frame(
        used.s.clientSecret,
        'POST',
        '/checkout/api/challenge/complete',
        {
          body: {
            challengeId: used.challenge.challengeId,
            encryptedCard: await onDisk.encryptCard(used.s.clientSecret, '4000000000002503'),
          },
        },
      );
      expect((done.body as PayResult).status).toBe('succeeded');
      expect(onFile(used.pares)).toBe(false);

      // An answered challenge that ends otherwise: closed by the shopper.
      const closed = await answered();
      const cancel = await onDisk.frame(
        closed.s.clientSecret,
        'POST',
        '/checkout/api/challenge/cancel',
        { body: { challengeId: closed.challenge.challengeId, reason: 'closed' } },
      );
      expect(cancel.body).toMatchObject({ error: { code: 'challenge_canceled' } });
      expect(onFile(closed.pares)).toBe(false);

      // Or left past its 10 minutes, ended by the next read of its session.
      const left = await answered();
      onDisk.clock.advance(10 * 60_000 + 1000);
      const view = await onDisk.frame(left.s.clientSecret, 'GET', '/checkout/api/session');
      expect(view.body).toMatchObject({ status: 'open' });
      expect(onFile(left.pares)).toBe(false);
    } finally {
      await onDisk.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
