export function havePostgres(): boolean;

export interface PgCluster {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  url: string;
  /** The postmaster's process id. */
  pid(): number;
  /** Stops the cluster and removes its directory; safe to call again. */
  stop(): void;
}

export function startPgCluster(opts?: { extraOptions?: string }): Promise<PgCluster>;
