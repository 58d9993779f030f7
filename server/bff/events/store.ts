import { sql, type Kysely, type Selectable } from 'kysely';
import type { EventType } from '../../../contract/events';
import type { Migration } from '../../lib/db';
import { uuidV7 } from '../../lib/ids';
import { changesOf, everyColumn, precompiled } from '../../lib/precompiled';
import type { BffKysely } from '../db';

/**
 * The events outbox: every event is a row written in the same transaction as the change it
 * tells of (sessions/transition.ts, payments canceled, subscriptions, billings), and its
 * delivery to `BFF_EVENTS_URL` is state on the same row, worked by events/delivery.ts. Each
 * delivery attempt is kept in `bff_event_attempts` for `GET /v1/events/:id`.
 */
export interface EventTables {
  bff_events: {
    /** `evt_` + a UUIDv7 without dashes: ids made later sort later. */
    id: string;
    type: string;
    created_at: string;
    /** The event's `data` (a public object), JSON. */
    data: string;
    /** The checkout session the event is about, when there is one. */
    session_id: string | null;
    /**
     * What makes the event once-only (`checkout_session.succeeded:cs_…`, `billing.paid:…`):
     * unique, so a second writer of the same fact adds nothing.
     */
    dedup_key: string;
    /** `pending | delivered | failed | none` (`none`: no `BFF_EVENTS_URL`). */
    delivery_status: string;
    /** Delivery attempts made in the current series (a redelivery starts a new one). */
    attempts: number;
    /** Delivery attempts made in every series: the number of the last `bff_event_attempts` row. */
    total_attempts: number;
    next_attempt_at: string | null;
    /** When the current delivery series began: it gives up three days later. */
    series_started_at: string;
    /** An instance sending it holds it until then (a dead instance's claim lapses). */
    claimed_until: string | null;
    delivered_at: string | null;
  };
  bff_event_attempts: {
    event_id: string;
    /** 1, 2, … across every series of the event. */
    attempt: number;
    at: string;
    status: number | null;
    error: string | null;
    duration_ms: number;
  };
}

export type EventRow = Selectable<EventTables['bff_events']>;
export type EventAttemptRow = Selectable<EventTables['bff_event_attempts']>;
export type EventsKysely = Kysely<EventTables>;

/** The BFF's store seen with the events tables (they are migrated with the rest). */
export function eventsDb(db: BffKysely | Kysely<unknown>): EventsKysely {
  return db as unknown as EventsKysely;
}

/*
 * The delivery worker's queries (events/delivery.ts), here so that a test can check which
 * index the store answers them from: `bff_events_due` for what is due, never for one event.
 */

/** Up to `limit` events due at `now` that no live claim holds, the longest waiting first. */
export function dueEventsQuery(db: BffKysely | Kysely<unknown>, now: string, limit: number) {
  return eventsDb(db)
    .selectFrom('bff_events')
    .selectAll()
    .where('delivery_status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .orderBy('next_attempt_at')
    .limit(limit);
}

/**
 * When the earliest pending retry after `after` is due (`at` null: none is). One due already
 * is read with what is due, not waited for.
 */
export function nextRetryQuery(db: BffKysely | Kysely<unknown>, after: string) {
  return (
    eventsDb(db)
      .selectFrom('bff_events')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('delivery_status', '=', 'pending')
      // Implied by the bound anyway; said so that the store may answer from `bff_events_due`.
      .where('next_attempt_at', 'is not', null)
      .where('next_attempt_at', '>', after)
  );
}

/**
 * When the earliest live claim on an event due at `now` lapses (`at` null: none holds one):
 * a claim a process left behind as it died (a crash, a kill) is taken over then.
 */
export function claimLapseQuery(db: BffKysely | Kysely<unknown>, now: string) {
  return eventsDb(db)
    .selectFrom('bff_events')
    .select((eb) => eb.fn.min('claimed_until').as('at'))
    .where('delivery_status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where('claimed_until', '>=', now);
}

/**
 * Claims a pending event for delivery until `until`: a compare-and-set on what `row` was read
 * with, so of two instances that read it only one updates it. Its claim alone is not enough:
 * recording a try clears the claim again, so another instance's send and record in between
 * would leave it as read. Every record adds one to `total_attempts`, which the claim compares
 * too. Returns the row as claimed: what is sent and recorded is read there, not from `row`.
 */
export function claimEventQuery(
  db: BffKysely | Kysely<unknown>,
  row: Pick<EventRow, 'id' | 'claimed_until' | 'total_attempts'>,
  until: string,
) {
  return eventsDb(db)
    .updateTable('bff_events')
    .set({ claimed_until: until })
    .where('id', '=', row.id)
    .where('delivery_status', '=', 'pending')
    .where('total_attempts', '=', row.total_attempts)
    .where((eb) =>
      row.claimed_until === null
        ? eb('claimed_until', 'is', null)
        : eb('claimed_until', '=', row.claimed_until),
    )
    .returningAll();
}

export const eventMigrations: Migration[] = [
  {
    name: 'bff_events_0001',
    async up(db) {
      await db.schema
        .createTable('bff_events')
        .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('type', 'varchar(40)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('session_id', 'varchar(64)')
        .addColumn('dedup_key', 'varchar(120)', (c) => c.notNull().unique())
        .addColumn('delivery_status', 'varchar(10)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('total_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'varchar(40)')
        .addColumn('series_started_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('claimed_until', 'varchar(40)')
        .addColumn('delivered_at', 'varchar(40)')
        .execute();
      // The delivery worker's "what is due" (pending rows only: delivered ones leave it).
      await sql`create index bff_events_due on bff_events (next_attempt_at) where delivery_status = 'pending'`.execute(
        db,
      );
      await db.schema
        .createIndex('bff_events_type')
        .on('bff_events')
        .columns(['type', 'id'])
        .execute();
      await db.schema
        .createIndex('bff_events_session')
        .on('bff_events')
        .columns(['session_id'])
        .execute();
      await db.schema
        .createTable('bff_event_attempts')
        .addColumn('event_id', 'varchar(40)', (c) => c.notNull().references('bff_events.id'))
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('at', 'varchar(40)', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('error', 'varchar(200)')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('bff_event_attempts_pk', ['event_id', 'attempt'])
        .execute();
    },
  },
  {
    name: 'bff_events_0002_listing',
    async up(db) {
      // `GET /v1/events` pages newest first by (created_at, id): without an index in that
      // order every page sorted the whole table. No query reads events by session; that index
      // cost a page write per event and goes.
      await db.schema.dropIndex('bff_events_session').execute();
      await db.schema.dropIndex('bff_events_type').execute();
      await db.schema
        .createIndex('bff_events_created')
        .on('bff_events')
        .columns(['created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('bff_events_type')
        .on('bff_events')
        .columns(['type', 'created_at', 'id'])
        .execute();
    },
  },
  {
    name: 'bff_events_0003_due_not_by_id',
    async up(db) {
      // A claim names its event and `delivery_status = 'pending'`, which satisfied this
      // index's old predicate too: PostgreSQL, before the first ANALYZE of a growing table,
      // chose walking every pending event (an endpoint down for a day: all of that day's) to
      // find one. Only a query that bounds `next_attempt_at` implies the new predicate.
      await db.schema.dropIndex('bff_events_due').execute();
      await sql`create index bff_events_due on bff_events (next_attempt_at) where delivery_status = 'pending' and next_attempt_at is not null`.execute(
        db,
      );
    },
  },
];

export function newEventId(): string {
  return `evt_${uuidV7().replaceAll('-', '')}`;
}

export interface NewEvent {
  type: EventType;
  data: unknown;
  sessionId: string | null;
  dedupKey: string;
  at: Date;
  /** Whether a delivery is due (a `BFF_EVENTS_URL` is configured). */
  deliver: boolean;
}

const EVENT_COLUMNS = {
  id: true,
  type: true,
  created_at: true,
  data: true,
  session_id: true,
  dedup_key: true,
  delivery_status: true,
  attempts: true,
  total_attempts: true,
  next_attempt_at: true,
  series_started_at: true,
  claimed_until: true,
  delivered_at: true,
} as const;

const insertEventQ = precompiled((db: EventsKysely, p: EventTables['bff_events']) =>
  db
    .insertInto('bff_events')
    .values(everyColumn(p, EVENT_COLUMNS))
    .onConflict((oc) => oc.column('dedup_key').doNothing()),
);

/**
 * Writes an event, in whatever transaction `db` is. Resolves its id, or null when the same fact
 * (its `dedupKey`) was recorded already.
 */
export async function insertEvent(db: BffKysely, e: NewEvent): Promise<string | null> {
  const id = newEventId();
  const at = e.at.toISOString();
  const q = insertEventQ(eventsDb(db), {
    id,
    type: e.type,
    created_at: at,
    data: JSON.stringify(e.data),
    session_id: e.sessionId,
    dedup_key: e.dedupKey,
    delivery_status: e.deliver ? 'pending' : 'none',
    attempts: 0,
    total_attempts: 0,
    next_attempt_at: e.deliver ? at : null,
    series_started_at: at,
    claimed_until: null,
    delivered_at: null,
  });
  return (await changesOf(db, q)) === 1 ? id : null;
}

export async function findEvent(db: BffKysely, id: string): Promise<EventRow | undefined> {
  return eventsDb(db).selectFrom('bff_events').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function eventAttempts(db: BffKysely, id: string): Promise<EventAttemptRow[]> {
  return eventsDb(db)
    .selectFrom('bff_event_attempts')
    .selectAll()
    .where('event_id', '=', id)
    .orderBy('attempt', 'asc')
    .execute();
}
