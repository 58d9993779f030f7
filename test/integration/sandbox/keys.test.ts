import { createPublicKey, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { wrapPrivateKey } from '../../../server/sandbox/keys/card-keys';
import { startSandbox } from '../../support/sandbox';
import { creditBody, encryptCard, expectFieldError } from './payment-helpers';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('GET /v1/cards/public-key', () => {
  it('makes one RSA-2048 SPKI key per client, also under concurrent first requests', async () => {
    const sb = await startSandbox();
    try {
      const answers = await Promise.all(
        [1, 2, 3, 4].map(() => sb.call('GET', '/v1/cards/public-key')),
      );
      const keys = new Set(answers.map((a) => (a.body as { key: string }).key));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(keys.size).toBe(1);
      const [pem] = [...keys];
      expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      const key = createPublicKey(pem!);
      expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
      // Reset keeps the key.
      await sb.call('POST', '/__sandbox/reset', { token: null });
      const again = await sb.call('GET', '/v1/cards/public-key', { token: await sb.token() });
      expect((again.body as { key: string }).key).toBe(pem);
    } finally {
      await sb.close();
    }
  });

  it('keeps the key across restarts, wrapped under a 0600 KEK file, never in plaintext', async () => {
    const file = join(dir, 'a.sqlite');
    const first = await startSandbox({ dbUrl: file });
    const pem = (await first.call('GET', '/v1/cards/public-key')).body as { key: string };
    await first.close();
    expect(statSync(`${file}.kek`).mode & 0o777).toBe(0o600);

    const second = await startSandbox({ dbUrl: file });
    try {
      expect(((await second.call('GET', '/v1/cards/public-key')).body as { key: string }).key).toBe(
        pem.key,
      );
      // A card encrypted with the key is accepted after the restart.
      const encryptedCard = encryptCard(
        pem.key,
        { number: '4000000000002701' },
        { timestamp: second.realClock.now().getTime() },
      );
      const paid = await second.call('POST', '/v1/payments', {
        body: creditBody({ cardholderName: 'A', encryptedCard }),
      });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    } finally {
      await second.close();
    }
    const db = new SQLite(file, { readonly: true });
    const row = db.prepare('select * from card_keys').get() as Record<string, string>;
    db.close();
    expect(row.wrapped_private).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain('PRIVATE KEY');
  });

  it('answers 400 when a stored key cannot be recovered (written under another KEK)', async () => {
    // A start refuses another KEK (kek-start.test.ts); a row written after it, by a process on
    // another key, still gets an answer, not a 500.
    const second = await startSandbox({ deps: { kek: randomBytes(32) } });
    try {
      await second.sandbox.ctx.db
        .insertInto('card_keys')
        .values({
          user_name: 'sandbox',
          public_pem: 'unused',
          wrapped_private: wrapPrivateKey(randomBytes(32), 'sandbox', randomBytes(64)),
          created_at: new Date().toISOString(),
        })
        .execute();
      expectFieldError(await second.call('GET', '/v1/cards/public-key'), 400, 'key');
      const res = await second.call('POST', '/v1/payments', {
        body: creditBody({
          cardholderName: 'A',
          encryptedCard: Buffer.alloc(256, 7).toString('base64'),
        }),
      });
      expectFieldError(res, 400, 'cardInfo.encryptedCard');
    } finally {
      await second.close();
    }
  });

  it('refuses an encrypted card before any key was issued', async () => {
    const sb = await startSandbox();
    try {
      const res = await sb.call('POST', '/v1/payments', {
        body: creditBody({
          cardholderName: 'A',
          encryptedCard: Buffer.alloc(256, 7).toString('base64'),
        }),
      });
      expect(expectFieldError(res, 400, 'cardInfo.encryptedCard')[0]!.description).toContain(
        'public-key',
      );
    } finally {
      await sb.close();
    }
  });

  it('POST /__sandbox/card-keys/rotate: a new key; a card encrypted with the old one is refused', async () => {
    const sb = await startSandbox();
    try {
      const old = ((await sb.call('GET', '/v1/cards/public-key')).body as { key: string }).key;
      const stale = encryptCard(
        old,
        { number: '4000000000002701' },
        { timestamp: sb.realClock.now().getTime() },
      );
      const rotated = await sb.call('POST', '/__sandbox/card-keys/rotate', {
        token: null,
        body: {},
      });
      expect(rotated.status).toBe(200);
      const key = (rotated.body as { key: string }).key;
      expect(key).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      expect(key).not.toBe(old);
      expect(((await sb.call('GET', '/v1/cards/public-key')).body as { key: string }).key).toBe(
        key,
      );
      const refused = await sb.call('POST', '/v1/payments', {
        body: creditBody({ cardholderName: 'A', encryptedCard: stale }),
      });
      expectFieldError(refused, 400, 'cardInfo.encryptedCard');
      const fresh = encryptCard(
        key,
        { number: '4000000000002701' },
        { timestamp: sb.realClock.now().getTime() },
      );
      const paid = await sb.call('POST', '/v1/payments', {
        body: creditBody({ cardholderName: 'A', encryptedCard: fresh }),
      });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      const unknown = await sb.call('POST', '/__sandbox/card-keys/rotate', {
        token: null,
        body: { userName: 'nobody' },
      });
      expectFieldError(unknown, 404, 'userName');
    } finally {
      await sb.close();
    }
  });
});
