// A process that opens the BFF store at argv[2], migrates it, and prints how many migrations
// it ran: several of these started at once are "instances starting together".
import type { BffDb } from '../../server/bff/db';
import { BFF_MIGRATIONS } from '../../server/bff/migrations';
import { migrate, openDb } from '../../server/lib/db';

const { db, close } = await openDb<BffDb>({ url: process.argv[2]! });
try {
  const ran = await migrate(db, BFF_MIGRATIONS);
  process.stdout.write(JSON.stringify({ ran: ran.length }));
} finally {
  await close();
}
