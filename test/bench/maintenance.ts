/**
 * The BFF's background and per-request store work as its history grows:
 * `npx tsx test/bench/maintenance.ts`.
 *
 * On SQLite stores holding 10,000, 100,000 and 300,000 past payments (each a succeeded session
 * with its attempt; one in ten a debit with its completed 3-D Secure challenge), times:
 * - one maintenance round (maintenance.ts `maintenanceRound`: unknown attempts looked
 *   up, idempotency keys pruned, due sessions expired, billing events checked), as the BFF
 *   runs it once a minute, on the event loop (SQLite is synchronous);
 * - one read of a session waiting in a challenge (`refreshSession`, what every frame request,
 *   pay and merchant read of such a session does first).
 * Prints milliseconds per call (median of 9) and the ratio to the smallest store, side by
 * side: work that reads only what it looks for stays flat as the history grows.
 * Env: BENCH_MAINT_SIZES (comma-separated, default 10000,100000,300000).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BffDb } from '../../server/bff/db';
import { BFF_MIGRATIONS } from '../../server/bff/migrations';
import { maintenanceRound } from '../../server/bff/maintenance';
import { refreshSession } from '../../server/bff/sessions/service';
import { findSession } from '../../server/bff/sessions/store';
import { migrate, openDb } from '../../server/lib/db';
import { startBff } from '../support/bff';
import { startSandbox } from '../support/sandbox';

const SIZES = (process.env.BENCH_MAINT_SIZES ?? '10000,100000,300000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const REPEAT = 9;
const WAITING = 'cs_waiting_in_challenge';

/** A store file with `n` past payments and one session waiting in a challenge. */
async function seededStore(dir: string, n: number): Promise<string> {
  const file = join(dir, `bff-${n}.sqlite`);
  const o = await openDb<BffDb>({ url: file });
  await migrate(o.db, BFF_MIGRATIONS);
  await o.close();
  const d = new Database(file);
  const session = d.prepare(
    `insert into checkout_sessions (id, client_secret_hash, status, amount, methods,
       max_installments, origin, attempts_used, created_at, updated_at, expires_at)
     values (?, ?, ?, 1000, 'credit,debit', 1, 'https://shop.example', 1, ?, ?, ?)`,
  );
  const attempt = d.prepare(
    `insert into payment_attempts (id, session_id, method, status, amount, installments,
       created_at, updated_at, gateway_reference, payment_id, nsu, authorization_code, return_code)
     values (?, ?, ?, ?, 1000, 1, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const challenge = d.prepare(
    `insert into challenges (id, session_id, attempt_id, md, acs_url, pareq,
       authentication_transaction_id, code_3ds, fingerprint, cardholder_name, brand,
       installments, window_size, status, pares, created_at, expires_at, answered_at)
     values (?, ?, ?, ?, 'https://acs.example/challenge', ?, ?, '1', 'fp', 'MARIA SILVA',
       'visa', 1, '05', ?, null, ?, ?, null)`,
  );
  const pareq = 'p'.repeat(600);
  const start = Date.now() - 30 * 86_400_000;
  d.transaction(() => {
    for (let i = 0; i < n; i++) {
      const at = new Date(start + i * 1000).toISOString();
      const debit = i % 10 === 0;
      session.run(`cs_${i}`, 'f'.repeat(64), 'succeeded', at, at, at);
      attempt.run(
        `pa_${i}`,
        `cs_${i}`,
        debit ? 'debit' : 'credit',
        'succeeded',
        at,
        at,
        `ref_${i}`,
        `pay_${i}`,
        String(i),
        'A1B2C3',
        '00',
      );
      if (debit) {
        challenge.run(
          `ch_${i}`,
          `cs_${i}`,
          `pa_${i}`,
          `md_${i}`,
          pareq,
          `t_${i}`,
          'completed',
          at,
          at,
        );
      }
    }
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 600_000).toISOString();
    session.run(WAITING, 'f'.repeat(64), 'challenge', now, now, later);
    attempt.run(
      `pa_${WAITING}`,
      WAITING,
      'debit',
      'challenge',
      now,
      now,
      `ref_w`,
      null,
      null,
      null,
      null,
    );
    challenge.run(
      `ch_${WAITING}`,
      WAITING,
      `pa_${WAITING}`,
      'md_w',
      pareq,
      't_w',
      'pending',
      now,
      later,
    );
  })();
  d.close();
  return file;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'card-checkout-maint-'));
  const sandbox = await startSandbox();
  const rows: { n: number; round: number; challenge: number }[] = [];
  try {
    for (const n of SIZES) {
      const file = await seededStore(dir, n);
      const t = await startBff({ sandbox, dbUrl: file });
      try {
        const ctx = t.bff.ctx;
        const opts = { intervalMs: 60_000, instance: 'bench', accountNumber: '1000001' };
        const round: number[] = [];
        const challenge: number[] = [];
        await maintenanceRound(ctx, opts);
        for (let i = 0; i < REPEAT; i++) {
          let s = performance.now();
          await maintenanceRound(ctx, opts);
          round.push(performance.now() - s);
          const row = (await findSession(ctx.db, WAITING))!;
          s = performance.now();
          await refreshSession(ctx, row);
          challenge.push(performance.now() - s);
        }
        rows.push({ n, round: median(round), challenge: median(challenge) });
      } finally {
        await t.close();
      }
    }
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const base = rows[0]!;
  console.log(
    'past payments   maintenance round   ×smallest   session in challenge read   ×smallest',
  );
  for (const r of rows) {
    console.log(
      `${r.n.toLocaleString('en').padStart(13)}   ${r.round.toFixed(2).padStart(14)} ms   ` +
        `${(r.round / base.round).toFixed(2).padStart(8)}×   ` +
        `${r.challenge.toFixed(3).padStart(21)} ms   ${(r.challenge / base.challenge).toFixed(2).padStart(8)}×`,
    );
  }
}

await main();
