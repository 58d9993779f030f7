import { z } from 'zod';
import { port } from '../lib/env-number';

const EnvSchema = z.object({
  SANDBOX_PORT: port(4010),
  SANDBOX_HOST: z.string().default('127.0.0.1'),
  SANDBOX_PUBLIC_URL: z.url().optional(),
  SANDBOX_DB: z.string().default('./data/sandbox.sqlite'),
  SANDBOX_CLIENTS_FILE: z.string().optional(),
  /** Base64 of 32 bytes: the key that wraps the clients' card private keys. */
  SANDBOX_KEK: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, {
      error: 'must be the base64 of exactly 32 bytes',
    })
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type SandboxEnvConfig = z.infer<typeof EnvSchema> & { SANDBOX_PUBLIC_URL: string };

/** The one place the sandbox reads `process.env`; a bad value stops start-up with its name. */
export function readSandboxEnv(env: NodeJS.ProcessEnv = process.env): SandboxEnvConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid sandbox configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  return {
    ...cfg,
    SANDBOX_PUBLIC_URL: cfg.SANDBOX_PUBLIC_URL ?? `http://localhost:${cfg.SANDBOX_PORT}`,
  };
}
