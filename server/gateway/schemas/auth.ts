import { z } from 'zod';
import { reqStr } from './common';

/** Body of both token operations (`/api/auth/token`, `/api/authentication/login`). */
export const TokenRequestSchema = z.object({
  userName: reqStr(30),
  password: reqStr(256),
});
export type TokenRequest = z.infer<typeof TokenRequestSchema>;

export const TokenResponseSchema = z.object({
  authenticated: z.boolean(),
  created: z.string(),
  expiration: z.string(),
  accessToken: z.string(),
  message: z.string(),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;
