import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** A gateway integrator known to the sandbox. */
export const SandboxClientSchema = z
  .object({
    userName: z.string().min(1).max(30),
    password: z.string().min(1).max(256),
    accountNumber: z.string().regex(/^\d{1,18}$/, { error: 'accountNumber must be digits' }),
    merchantId: z.string().regex(/^\d{1,20}$/, { error: 'merchantId must be digits' }),
  })
  .strict();
export type SandboxClient = z.infer<typeof SandboxClientSchema>;

export const DEFAULT_CLIENT: SandboxClient = {
  userName: 'sandbox',
  password: 'sandbox',
  accountNumber: '1001',
  merchantId: '000000000001001',
};

/** Reads extra clients from a JSON array file; the default client is always present. */
export function loadClients(file?: string): SandboxClient[] {
  if (!file) return [DEFAULT_CLIENT];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`SANDBOX_CLIENTS_FILE ${file}: ${(err as Error).message}`);
  }
  const parsed = z.array(SandboxClientSchema).safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(
      `SANDBOX_CLIENTS_FILE ${file}: [${first?.path.join('.')}] ${first?.message ?? 'invalid'}`,
    );
  }
  const clients = [
    DEFAULT_CLIENT,
    ...parsed.data.filter((c) => c.userName !== DEFAULT_CLIENT.userName),
  ];
  const seen = new Set<string>();
  for (const c of clients) {
    if (seen.has(c.userName))
      throw new Error(`SANDBOX_CLIENTS_FILE ${file}: duplicate userName ${c.userName}`);
    seen.add(c.userName);
  }
  return clients;
}
