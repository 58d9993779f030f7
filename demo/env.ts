import { z } from 'zod';
import { port } from '../server/lib/env-number';

const EnvSchema = z.object({
  NODE_ENV: z.string().optional(),
  DEMO_PORT: port(3000),
  DEMO_HOST: z.string().default('127.0.0.1'),
  DEMO_PUBLIC_URL: z.url().optional(),
  BFF_PORT: port(3001),
  BFF_URL: z.url().optional(),
  BFF_PUBLIC_URL: z.url().optional(),
  BFF_MERCHANT_SECRET: z.string().min(1).optional(),
  /** Where the card issuers' 3-D Secure pages are served besides https: (the sandbox's bank). */
  DEMO_ISSUER_ORIGINS: z.string().default('http://localhost:4010'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface DemoEnvConfig {
  DEMO_PORT: number;
  DEMO_HOST: string;
  DEMO_PUBLIC_URL: string;
  BFF_URL: string;
  BFF_PUBLIC_URL: string;
  BFF_MERCHANT_SECRET: string;
  DEMO_ISSUER_ORIGINS: string[];
  LOG_LEVEL: z.infer<typeof EnvSchema>['LOG_LEVEL'];
}

/** The one place the demo reads `process.env`; a bad value stops start-up with its name. */
export function readDemoEnv(env: NodeJS.ProcessEnv = process.env): DemoEnvConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid demo configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  const secret =
    cfg.BFF_MERCHANT_SECRET ?? (cfg.NODE_ENV === 'production' ? undefined : 'sk_test_local');
  if (!secret)
    throw new Error('invalid demo configuration:\n  BFF_MERCHANT_SECRET: required in production');
  const bffPublic = cfg.BFF_PUBLIC_URL ?? `http://localhost:${cfg.BFF_PORT}`;
  return {
    DEMO_PORT: cfg.DEMO_PORT,
    DEMO_HOST: cfg.DEMO_HOST,
    DEMO_PUBLIC_URL: cfg.DEMO_PUBLIC_URL ?? `http://localhost:${cfg.DEMO_PORT}`,
    BFF_URL: cfg.BFF_URL ?? bffPublic,
    BFF_PUBLIC_URL: bffPublic,
    BFF_MERCHANT_SECRET: secret,
    DEMO_ISSUER_ORIGINS: cfg.DEMO_ISSUER_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    LOG_LEVEL: cfg.LOG_LEVEL,
  };
}
