import type { Migration } from '../../lib/db';

export interface KeysTables {
  /** One RSA key pair per client; the private key only wrapped (AES-256-GCM under the KEK). */
  card_keys: {
    user_name: string;
    public_pem: string;
    /** `v1.<iv>.<tag>.<ciphertext>` (base64) of the PKCS#8 DER private key. */
    wrapped_private: string;
    created_at: string;
  };
  /** Nonces of accepted card ciphertexts (SHA-256 of client and nonce), for replay refusal. */
  used_nonces: {
    nonce_hash: string;
    used_at: string;
  };
}

export const keysMigrations: Migration[] = [
  {
    name: 'keys_0001_card_keys',
    async up(db) {
      await db.schema
        .createTable('card_keys')
        .addColumn('user_name', 'varchar(30)', (c) => c.primaryKey())
        .addColumn('public_pem', 'text', (c) => c.notNull())
        .addColumn('wrapped_private', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('used_nonces')
        .addColumn('nonce_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('used_at', 'varchar(40)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('used_nonces_used_at')
        .on('used_nonces')
        .column('used_at')
        .execute();
    },
  },
];
