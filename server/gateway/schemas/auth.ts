import { z } from 'zod';
import { reqStr } from './common';

/** Body of both token operations (`/api/auth/token`, `/api/authentication/login`). */
export const TokenRequestSchema = z.object({
  userName: reqStr(30),
  password: reqStr(256),
});
export type TokenRequest = z.infer<typeof TokenRequestSchema>;

/**
 * The access token answer. The spec lists its fields without saying which are always there:
 * `authenticated` and `accessToken` are what a token is; `created`/`expiration` may be null or
 * missing (the token manager then assumes a short life) and `message` too.
 */
export const TokenResponseSchema = z.object({
  authenticated: z.boolean(),
  created: z.string().nullish(),
  expiration: z.string().nullish(),
  accessToken: z.string(),
  message: z.string().nullish(),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;
