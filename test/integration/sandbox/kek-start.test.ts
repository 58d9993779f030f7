import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../../server/lib/db';
import { createSandboxApp } from '../../../server/sandbox/app';
import { DEFAULT_CLIENT } from '../../../server/sandbox/clients';
import type { SandboxDb } from '../../../server/sandbox/db';
import { webhooksOf } from '../../../server/sandbox/webhooks/service';

/**
 * The key-encryption key (`SANDBOX_KEK`, else `<db>.kek`) must open what the store holds
 * wrapped with it: a missing, replaced or garbled key stops the start, naming where the key
 * came from, instead of a sandbox that says ready and then cannot use its card keys or
 * webhook credentials.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandbox-kek-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const newFile = () => join(dir, `s${++n}.sqlite`);

/** Builds the sandbox over `file`, lets `use` run, closes; the refusal's message, or null. */
async function startOn(
  file: string,
  kek?: Buffer,
  use: (sb: Awaited<ReturnType<typeof createSandboxApp>>) => Promise<void> = async () => {},
): Promise<string | null> {
  const { db, close } = await openDb<SandboxDb>({ url: file });
  try {
    const sb = await createSandboxApp({
      db,
      publicUrl: 'http://127.0.0.1:9',
      ...(kek ? { kek } : {}),
    });
    try {
      await use(sb);
    } finally {
      await sb.close();
    }
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await close();
  }
}

/** The default client's card key pair, made on its first public-key request. */
async function issueCardKey(sb: Awaited<ReturnType<typeof createSandboxApp>>): Promise<void> {
  const login = await sb.app.request('/api/auth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: DEFAULT_CLIENT.userName, password: DEFAULT_CLIENT.password }),
  });
  const { accessToken } = (await login.json()) as { accessToken: string };
  const res = await sb.app.request('/v1/cards/public-key', {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  expect(res.status).toBe(200);
}

const webhookCredentials = (sb: Awaited<ReturnType<typeof createSandboxApp>>) =>
  webhooksOf(sb.ctx).setSubscription(
    '1001',
    'http://127.0.0.1:9/hook',
    Buffer.from('gw:pw').toString('base64'),
  );

describe('the sandbox key-encryption key at start', () => {
  it('a fresh store makes its .kek file; the same file opens it again', async () => {
    const file = newFile();
    expect(await startOn(file, undefined, issueCardKey)).toBeNull();
    expect(existsSync(`${file}.kek`)).toBe(true);
    expect(await startOn(file)).toBeNull();
  });

  it('a replaced .kek file is refused, naming the file', async () => {
    const file = newFile();
    expect(await startOn(file, undefined, issueCardKey)).toBeNull();
    writeFileSync(`${file}.kek`, `${randomBytes(32).toString('base64')}\n`);
    const refused = await startOn(file);
    expect(refused).toContain(`${file}.kek is not the key that wrapped`);
    expect(refused).toContain('docs/sandbox.md');
  });

  it('a missing .kek file is refused while the store holds wrapped data, and not re-made', async () => {
    const file = newFile();
    expect(await startOn(file, undefined, webhookCredentials)).toBeNull();
    unlinkSync(`${file}.kek`);
    expect(await startOn(file)).toContain(`${file}.kek is missing`);
    expect(existsSync(`${file}.kek`)).toBe(false);
  });

  it('a garbled .kek file names the file, not SANDBOX_KEK', async () => {
    const file = newFile();
    writeFileSync(`${file}.kek`, 'not a key\n');
    const refused = await startOn(file);
    expect(refused).toContain(`${file}.kek: must hold the base64 of exactly 32 bytes`);
    expect(refused).not.toContain('SANDBOX_KEK must');
  });

  it('another SANDBOX_KEK is refused, for card keys and for webhook credentials alike', async () => {
    const cards = newFile();
    expect(await startOn(cards, randomBytes(32), issueCardKey)).toBeNull();
    expect(await startOn(cards, randomBytes(32))).toContain(
      'SANDBOX_KEK is not the key that wrapped',
    );
    const hooks = newFile();
    const kek = randomBytes(32);
    expect(await startOn(hooks, kek, webhookCredentials)).toBeNull();
    expect(await startOn(hooks, randomBytes(32))).toContain(
      'SANDBOX_KEK is not the key that wrapped',
    );
    expect(await startOn(hooks, kek)).toBeNull();
  });
});
