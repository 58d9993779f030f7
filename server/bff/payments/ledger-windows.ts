import { MS } from '../../lib/clock';
import type { ConcilSummaryRow } from '../../gateway/schemas';
import type { BffContext } from '../context';

/** How far past today a ledger search reaches (the whole window stays within 366 days). */
const SEARCH_DAYS_AHEAD = 62;
/** Payment attempts whose calls lie at most this far apart share one ledger search. */
const CLUSTER_SPAN_MS = 7 * MS.day;
/**
 * Ledger searches a round makes at most, for the oldest clusters. Each returns every sale of
 * the account over its window (about 70 days, one answer, no pages), so a round costs the same
 * however long the backlog: after a week or more without rounds, the oldest clusters settle
 * first (each attempt of a searched cluster is found, or declared not to have happened once
 * its day and the next are covered), and the next round searches the next ones. Only the
 * newest cluster can hold attempts not due yet, so it never keeps an older one waiting.
 */
const MAX_SEARCHES = 3;

/** The day (UTC) of an instant plus `days`, as the reconciliation searches take it. */
function utcDay(at: number, days: number): string {
  return new Date(at + days * MS.day).toISOString().slice(0, 10);
}

interface PaymentAttempt {
  id: string;
  /** When the attempt began, and when its gateway call ended (the outcome became unknown). */
  created_at: string;
  updated_at: string;
}

/**
 * The ledger's sales for each payment attempt whose outcome is unknown, however old: the
 * attempts (oldest first) form clusters whose calls lie within `CLUSTER_SPAN_MS` of the first,
 * and each of the oldest `MAX_SEARCHES` clusters is searched once, from the day before its
 * first attempt (the gateway's operation date is a São Paulo day; a day each side covers any
 * offset) to `SEARCH_DAYS_AHEAD` days after today (its first attempt's + 300 days at most).
 * A sale is dated by the gateway's clock, not ours: one running ahead (a sandbox whose business clock was moved
 * on, or a clock that drifted) dates it after our day, and a window ending the day after would
 * miss it and declare a charged payment not to have happened. The whole window stays within
 * the gateway's 366 days. An attempt maps to its own cluster's sales, which cover its whole
 * day and the next; one not in the map was not searched this round.
 */
export async function ledgerSalesByAttempt(
  ctx: BffContext,
  accountNumber: string,
  attempts: readonly PaymentAttempt[],
  now: Date,
): Promise<Map<string, readonly ConcilSummaryRow[]>> {
  const clusters: PaymentAttempt[][] = [];
  const oldestFirst = [...attempts].sort((a, b) => a.created_at.localeCompare(b.created_at));
  for (const a of oldestFirst) {
    const current = clusters.at(-1);
    const first = current?.[0];
    if (first && Date.parse(a.updated_at) - Date.parse(first.created_at) <= CLUSTER_SPAN_MS) {
      current.push(a);
    } else if (clusters.length < MAX_SEARCHES) {
      clusters.push([a]);
    } else {
      break;
    }
  }
  const out = new Map<string, readonly ConcilSummaryRow[]>();
  for (const cluster of clusters) {
    const first = Date.parse(cluster[0]!.created_at);
    const sales = await ctx.gateway.searchConcilByOperationDate(
      {
        accountNumber,
        startDate: utcDay(first, -1),
        endDate: utcDay(Math.min(now.getTime(), first + 300 * MS.day), SEARCH_DAYS_AHEAD),
      },
      { timeoutMs: 10_000 },
    );
    for (const a of cluster) out.set(a.id, sales);
  }
  return out;
}
