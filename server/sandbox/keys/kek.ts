import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { SandboxKysely } from '../db';
import { SecretBox } from '../webhooks/secret-box';
import { unwrapPrivateKey } from './card-keys';

export const KEK_BYTES = 32;

/** The base64 of a key-encryption key, or null unless it is exactly 32 bytes (canonical). */
function parseKek(base64: string): Buffer | null {
  const kek = Buffer.from(base64.trim(), 'base64');
  return kek.length === KEK_BYTES && kek.toString('base64') === base64.trim() ? kek : null;
}

/** Decodes a base64 key-encryption key (`SANDBOX_KEK`), refusing anything but 32 bytes. */
export function decodeKek(base64: string): Buffer {
  const kek = parseKek(base64);
  if (!kek) throw new Error('SANDBOX_KEK must be the base64 of exactly 32 bytes');
  return kek;
}

const WHAT_TO_DO = 'see "Card key and encrypted cards" in docs/sandbox.md';

/**
 * The key-encryption key that wraps the clients' private keys and seals the webhook
 * credentials: the one given (`SANDBOX_KEK`), else a random one kept in a 0600 file beside the
 * SQLite file (`<db>.kek`), else (`:memory:`) a random one that lives as long as the process,
 * like the database itself. A key that cannot open what the store holds wrapped — another
 * SANDBOX_KEK, a replaced or garbled file, a missing file over a store that needs it — stops
 * the start, naming where the key came from; a fresh store makes its file.
 */
export async function resolveKek(db: SandboxKysely, given?: Buffer): Promise<Buffer> {
  const file = await sqliteFile(db);
  const store = file ?? 'the store';
  if (given) {
    if (given.length !== KEK_BYTES) throw new Error('kek must be 32 bytes');
    await assertOpensStore(db, given, 'SANDBOX_KEK', store);
    return given;
  }
  if (!file) return randomBytes(KEK_BYTES);
  const path = `${file}.kek`;
  const existing = readKekFile(path);
  if (existing) {
    await assertOpensStore(db, existing, path, store);
    return existing;
  }
  const held = await wrappedData(db);
  if (held.length > 0) {
    throw new Error(
      `${path} is missing, but ${file} holds ${held.join(' and ')} wrapped with the key it held: restore the file (or set SANDBOX_KEK to that key), or delete ${file} to start afresh (${WHAT_TO_DO})`,
    );
  }
  const kek = randomBytes(KEK_BYTES);
  try {
    writeFileSync(path, kek.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
    return kek;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readKekFile(path)!;
    throw err;
  }
}

/** The key in `path`, or null when there is no such file; a garbled one is refused by name. */
function readKekFile(path: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const kek = parseKek(text);
  if (!kek) {
    throw new Error(
      `${path}: must hold the base64 of exactly 32 bytes (the sandbox's key-encryption key): restore the file, or delete it with its database to start afresh (${WHAT_TO_DO})`,
    );
  }
  return kek;
}

/** What the store holds wrapped with a key-encryption key, in words (empty: nothing). */
async function wrappedData(db: SandboxKysely): Promise<string[]> {
  const held: string[] = [];
  if (await db.selectFrom('card_keys').select('user_name').limit(1).executeTakeFirst()) {
    held.push('card keys');
  }
  if (
    await db
      .selectFrom('webhook_subscriptions')
      .select('account_number')
      .limit(1)
      .executeTakeFirst()
  ) {
    held.push('webhook credentials');
  }
  return held;
}

/** Refuses a key that cannot open a stored card key or webhook credential (one of each). */
async function assertOpensStore(
  db: SandboxKysely,
  kek: Buffer,
  source: string,
  store: string,
): Promise<void> {
  const unopened: string[] = [];
  const card = await db
    .selectFrom('card_keys')
    .select(['user_name', 'wrapped_private'])
    .limit(1)
    .executeTakeFirst();
  if (card && !opens(() => unwrapPrivateKey(kek, card.user_name, card.wrapped_private))) {
    unopened.push('card keys');
  }
  const hook = await db
    .selectFrom('webhook_subscriptions')
    .select(['account_number', 'basic_auth_enc'])
    .limit(1)
    .executeTakeFirst();
  if (hook) {
    const box = SecretBox.open(kek);
    if (!opens(() => box.open(hook.basic_auth_enc, hook.account_number))) {
      unopened.push('webhook credentials');
    }
  }
  if (unopened.length === 0) return;
  const fix =
    source === 'SANDBOX_KEK'
      ? `set SANDBOX_KEK to the key they were made with (unset it if that is ${store}.kek)`
      : `restore the ${source} they were made with (or set SANDBOX_KEK to that key)`;
  throw new Error(
    `${source} is not the key that wrapped the ${unopened.join(' and ')} in ${store}: ${fix}, or start on a new SANDBOX_DB (${WHAT_TO_DO})`,
  );
}

function opens(unwrap: () => unknown): boolean {
  try {
    unwrap();
    return true;
  } catch {
    return false;
  }
}

/** The main database file of a SQLite connection, or null for memory (or non-SQLite). */
async function sqliteFile(db: SandboxKysely): Promise<string | null> {
  try {
    const rows = await sql<{ name: string; file: string }>`pragma database_list`.execute(db);
    const main = rows.rows.find((r) => r.name === 'main');
    return main?.file ? main.file : null;
  } catch {
    return null;
  }
}
