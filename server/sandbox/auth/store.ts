import type { Migration } from '../../lib/db';

/** Which token operation issued a token; each API accepts only its own family's tokens. */
export type TokenFamily = 'gateway' | 'integration';

export interface AuthTables {
  access_tokens: {
    /** SHA-256 of the token: the token itself is never stored. */
    token_hash: string;
    user_name: string;
    family: TokenFamily;
    created_at: string;
    expires_at: string;
  };
}

export const authMigrations: Migration[] = [
  {
    name: '0002_access_tokens',
    async up(db) {
      await db.schema
        .createTable('access_tokens')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('family', 'varchar(20)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(40)', (c) => c.notNull())
        .execute();
    },
  },
];
