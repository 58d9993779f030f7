/** The environment variables that chose where a server listens (`host` unset: not configurable). */
export interface ListenVars {
  port: string;
  host?: string;
}

/**
 * A failed `listen` told as configuration: the app, the variable that chose the port or the
 * address, and what to do — instead of a bare `listen EADDRINUSE` or `getaddrinfo ENOTFOUND`.
 */
export function listenError(
  app: string,
  vars: ListenVars,
  at: { host: string; port: number },
  err: unknown,
): Error {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const hostVar = vars.host ? `${vars.host}=${at.host}` : at.host;
  let why: string;
  if (code === 'EADDRINUSE') {
    why = `${vars.port}=${at.port} is in use on ${at.host} (another process listens there): stop it or choose another ${vars.port}`;
  } else if (code === 'EACCES') {
    why = `${vars.port}=${at.port} needs privileges this process lacks: choose a port above 1023`;
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL') {
    why = `${hostVar} is not an address of this machine (${code}): use one of its addresses or names, like 127.0.0.1`;
  } else {
    why = `cannot listen on ${at.host}:${at.port} (${vars.port}${vars.host ? `, ${vars.host}` : ''}): ${(err as Error).message}`;
  }
  return new Error(`${app}: ${why}`, { cause: err });
}
