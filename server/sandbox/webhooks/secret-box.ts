import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encrypts the webhook `basicAuth` at rest. The sandbox must send it later, so it cannot be a
 * hash; it is sealed with AES-256-GCM under a key derived (HKDF) from the sandbox
 * key-encryption key, with the account number bound as associated data.
 *
 * The KEK: the one the app resolves (`resolveKek`: `SANDBOX_KEK`, else the 0600 file
 * `<db>.kek` beside the SQLite file, the one the card keys use, else, for an in-memory
 * database, a random key living as long as the process and the data).
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static open(kek: Buffer): SecretBox {
    const key = Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), 'webhook-basic-auth', 32));
    return new SecretBox(key);
  }

  seal(plain: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ct]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64')))
      .join('.');
  }

  open(sealed: string, aad: string): string {
    const [v, iv, tag, ct] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || !ct) throw new Error('unknown sealed format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  }
}
