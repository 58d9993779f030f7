import type { Migration } from '../../lib/db';
import type { CardBrand } from '../../gateway/schemas/payments';

export type ThreeDsAuthStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface ThreeDsTables {
  /**
   * Challenges waiting for (or done with) the ACS. The card only as its last four digits and a
   * keyed HMAC fingerprint whose key is not in the database (derived from the KEK): a row alone
   * cannot give the number back, as a salted hash of a 16-digit PAN with its BIN could.
   */
  three_ds_auths: {
    id: string;
    user_name: string;
    /** Random reference carried (base64) by the PaReq; the ACS finds the challenge by it. */
    pareq_ref: string;
    amount: number;
    product_type: string;
    installments: number;
    brand: CardBrand;
    last_four: string;
    /** HMAC-SHA-256 of the card number under the fingerprint key: validate's same-card check. */
    pan_fingerprint: string;
    behaviour: 'challenge' | 'challenge_fail';
    /** What the authorization answers once authenticated (card row or override). */
    return_code: string;
    internal_error: number;
    reference_transaction: string | null;
    status: ThreeDsAuthStatus;
    otp_tries: number;
    term_url: string | null;
    md: string | null;
    created_at: string;
    expires_at: string;
    completed_at: string | null;
    pares_used_at: string | null;
  };
}

export const threeDsMigrations: Migration[] = [
  {
    name: 'three_ds_0001_auths',
    async up(db) {
      await db.schema
        .createTable('three_ds_auths')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('pareq_ref', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('product_type', 'varchar(10)', (c) => c.notNull())
        .addColumn('installments', 'integer', (c) => c.notNull())
        .addColumn('brand', 'varchar(12)', (c) => c.notNull())
        .addColumn('masked_number', 'varchar(15)', (c) => c.notNull())
        .addColumn('pan_salt', 'varchar(64)', (c) => c.notNull())
        .addColumn('pan_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('behaviour', 'varchar(20)', (c) => c.notNull())
        .addColumn('return_code', 'varchar(4)', (c) => c.notNull())
        .addColumn('internal_error', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('reference_transaction', 'varchar(50)')
        .addColumn('status', 'varchar(10)', (c) => c.notNull())
        .addColumn('otp_tries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('term_url', 'varchar(2048)')
        .addColumn('md', 'varchar(1024)')
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('completed_at', 'varchar(40)')
        .addColumn('pares_used_at', 'varchar(40)')
        .execute();
    },
  },
  {
    // First six + last four + salt + SHA-256 gave every PAN back in about a second.
    name: 'three_ds_0002_card_fingerprint',
    async up(db) {
      await db.schema
        .alterTable('three_ds_auths')
        .addColumn('last_four', 'varchar(4)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('three_ds_auths')
        .addColumn('pan_fingerprint', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .execute();
      for (const column of ['masked_number', 'pan_salt', 'pan_hash']) {
        await db.schema.alterTable('three_ds_auths').dropColumn(column).execute();
      }
    },
  },
];
