import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  generateKeyPair,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import { isUniqueViolation } from '../../lib/db';
import type { SandboxContext } from '../context';

const generateKeyPairAsync = promisify(generateKeyPair);

/** Wraps a private key (PKCS#8 DER) with AES-256-GCM; the client name is bound as AAD. */
export function wrapPrivateKey(kek: Buffer, userName: string, der: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(userName, 'utf8'));
  const ct = Buffer.concat([cipher.update(der), cipher.final()]);
  const tag = cipher.getAuthTag();
  return ['v1', iv.toString('base64'), tag.toString('base64'), ct.toString('base64')].join('.');
}

export function unwrapPrivateKey(kek: Buffer, userName: string, wrapped: string): Buffer {
  const [v, iv, tag, ct] = wrapped.split('.');
  if (v !== 'v1' || !iv || !tag || !ct) throw new Error('unknown wrapped key format');
  const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(iv, 'base64'));
  decipher.setAAD(Buffer.from(userName, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]);
}

interface KeyPair {
  publicPem: string;
  privateKey: KeyObject;
}

/**
 * One RSA-2048 key pair per client, made on first use and kept in `card_keys`. Unwrapped
 * private keys are cached in memory; concurrent first requests share one generation, and the
 * primary key settles a race between processes (the loser adopts the stored pair).
 */
export class CardKeys {
  private readonly cache = new Map<string, KeyPair>();
  private readonly inflight = new Map<string, Promise<KeyPair>>();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly kek: Buffer,
  ) {}

  /** The client's public key (PEM, SPKI), creating the pair on first call. */
  async publicKey(userName: string): Promise<string> {
    return (await this.pair(userName, true))!.publicPem;
  }

  /**
   * Replaces the client's key pair (a rotation): ciphertexts made with the old public key no
   * longer open. Resolves the new public key.
   */
  async rotate(userName: string): Promise<string> {
    await this.inflight.get(userName)?.catch(() => undefined);
    await this.ctx.db.deleteFrom('card_keys').where('user_name', '=', userName).execute();
    this.cache.delete(userName);
    return this.publicKey(userName);
  }

  /** The client's private key, or null when no key was ever issued to it. */
  async privateKey(userName: string): Promise<KeyObject | null> {
    return (await this.pair(userName, false))?.privateKey ?? null;
  }

  private async pair(userName: string, create: boolean): Promise<KeyPair | null> {
    const cached = this.cache.get(userName);
    if (cached) return cached;
    const running = this.inflight.get(userName);
    if (running) return running;
    const loaded = await this.load(userName);
    if (loaded || !create) return loaded;
    const again = this.inflight.get(userName);
    if (again) return again;
    const p = this.create(userName).finally(() => this.inflight.delete(userName));
    this.inflight.set(userName, p);
    return p;
  }

  private async load(userName: string): Promise<KeyPair | null> {
    const row = await this.ctx.db
      .selectFrom('card_keys')
      .select(['public_pem', 'wrapped_private'])
      .where('user_name', '=', userName)
      .executeTakeFirst();
    if (!row) return null;
    const der = unwrapPrivateKey(this.kek, userName, row.wrapped_private);
    const pair = {
      publicPem: row.public_pem,
      privateKey: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }),
    };
    this.cache.set(userName, pair);
    return pair;
  }

  private async create(userName: string): Promise<KeyPair> {
    const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
      modulusLength: 2048,
      publicExponent: 0x10001,
    });
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const der = privateKey.export({ type: 'pkcs8', format: 'der' });
    try {
      await this.ctx.db
        .insertInto('card_keys')
        .values({
          user_name: userName,
          public_pem: publicPem,
          wrapped_private: wrapPrivateKey(this.kek, userName, der),
          created_at: this.ctx.clock.now().toISOString(),
        })
        .execute();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const stored = await this.load(userName);
      if (stored) return stored;
      throw err;
    }
    const pair = { publicPem, privateKey };
    this.cache.set(userName, pair);
    return pair;
  }
}
