import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { SandboxKysely } from '../db';

export const KEK_BYTES = 32;

/** Decodes a base64 key-encryption key (`SANDBOX_KEK`), refusing anything but 32 bytes. */
export function decodeKek(base64: string): Buffer {
  const kek = Buffer.from(base64, 'base64');
  if (kek.length !== KEK_BYTES || kek.toString('base64') !== base64.trim()) {
    throw new Error('SANDBOX_KEK must be the base64 of exactly 32 bytes');
  }
  return kek;
}

/**
 * The key-encryption key that wraps the clients' private keys: the one given, else a random
 * one kept in a 0600 file beside the SQLite file (`<db>.kek`), else (`:memory:`) a random one
 * that lives as long as the process, like the database itself.
 */
export async function resolveKek(db: SandboxKysely, given?: Buffer): Promise<Buffer> {
  if (given) {
    if (given.length !== KEK_BYTES) throw new Error('kek must be 32 bytes');
    return given;
  }
  const file = await sqliteFile(db);
  if (!file) return randomBytes(KEK_BYTES);
  const path = `${file}.kek`;
  try {
    return decodeKek(readFileSync(path, 'utf8').trim());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const kek = randomBytes(KEK_BYTES);
  try {
    writeFileSync(path, kek.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
    return kek;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      return decodeKek(readFileSync(path, 'utf8').trim());
    }
    throw err;
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
