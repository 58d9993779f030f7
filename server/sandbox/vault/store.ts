import type { Migration } from '../../lib/db';
import type { CardBrand } from '../../gateway/schemas/payments';

export interface VaultTables {
  /** Vaulted cards: no number and no security code, only what a charge needs to decide. */
  card_vault: {
    vault_id: string;
    user_name: string;
    brand: CardBrand;
    first_six: string;
    last_four: string;
    exp_month: string;
    exp_year: string;
    holder: string;
    /** The card's test-card behaviour, fixed when vaulted. */
    three_ds: string;
    return_code: string;
    internal_error: number;
    created_at: string;
  };
}

export const vaultMigrations: Migration[] = [
  {
    name: 'vault_0001_card_vault',
    async up(db) {
      await db.schema
        .createTable('card_vault')
        .addColumn('vault_id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('brand', 'varchar(12)', (c) => c.notNull())
        .addColumn('first_six', 'varchar(6)', (c) => c.notNull())
        .addColumn('last_four', 'varchar(4)', (c) => c.notNull())
        .addColumn('exp_month', 'varchar(2)', (c) => c.notNull())
        .addColumn('exp_year', 'varchar(2)', (c) => c.notNull())
        .addColumn('holder', 'varchar(30)', (c) => c.notNull())
        .addColumn('three_ds', 'varchar(20)', (c) => c.notNull())
        .addColumn('return_code', 'varchar(4)', (c) => c.notNull())
        .addColumn('internal_error', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .execute();
    },
  },
];
