import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/lib/logging';
import { startSandbox } from '../../support/sandbox';
import { creditBody, debitBody, encryptCard, plainCardInfo, publicKey } from './payment-helpers';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-pan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('no card data at rest or in logs', () => {
  it('stores no PAN, CVV or ciphertext in any table after every kind of payment', async () => {
    const file = join(dir, 'pan.sqlite');
    let logs = '';
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({
        write(chunk, _enc, done) {
          logs += String(chunk);
          done();
        },
      }),
    });
    const sb = await startSandbox({ dbUrl: file, deps: { logger } });
    const ciphertexts: string[] = [];
    const numbers = ['4000000000002701', '4000000000002503', '4000000000000002', '340000000002708'];
    try {
      const pem = await publicKey(sb);
      const enc = (number: string) => {
        const c = encryptCard(
          pem,
          { number, securityCode: number.startsWith('34') ? '9876' : '987' },
          { timestamp: sb.realClock.now().getTime() },
        );
        ciphertexts.push(c);
        return c;
      };
      for (const number of numbers) {
        await sb.call('POST', '/v1/payments', {
          body: creditBody({ cardholderName: 'A', encryptedCard: enc(number) }),
        });
        await sb.call('POST', '/v1/payments/3ds', {
          body: debitBody({ cardholderName: 'A', encryptedCard: enc(number) }),
        });
        await sb.call('POST', '/v1/payments', {
          body: creditBody(
            plainCardInfo(sb, number, { securityCode: number.startsWith('34') ? '9876' : '987' }),
          ),
        });
      }
      await sb.call('POST', '/v1/cards/vault', {
        body: { cardInfo: { cardholderName: 'A', encryptedCard: enc('5200000000002235') } },
      });
      // The internal-error card goes through the error path (logged) too.
      await sb.call('POST', '/v1/payments', {
        body: creditBody(plainCardInfo(sb, '4000000000000119', { securityCode: '987' })),
      });
    } finally {
      await sb.close();
    }
    const db = new SQLite(file, { readonly: true });
    const tables = (
      db.prepare("select name from sqlite_master where type='table'").all() as { name: string }[]
    ).map((t) => t.name);
    let dump = '';
    for (const t of tables) dump += JSON.stringify(db.prepare(`select * from "${t}"`).all());
    db.close();
    expect(dump).toContain('400000*****2701');
    for (const n of [...numbers, '5200000000002235', '4000000000000119'])
      expect(dump).not.toContain(n);
    expect(dump).not.toMatch(/"(987|9876)"/);
    for (const c of ciphertexts) {
      expect(dump).not.toContain(c);
      expect(dump).not.toContain(c.slice(0, 40));
      expect(logs).not.toContain(c.slice(0, 40));
    }
    for (const n of numbers) expect(logs).not.toContain(n);
    // WAL and database files on disk carry no card number either.
    for (const suffix of ['', '-wal']) {
      let raw = '';
      try {
        raw = readFileSync(file + suffix).toString('latin1');
      } catch {
        continue;
      }
      for (const n of numbers) expect(raw).not.toContain(n);
    }
  });
});
