/**
 * The gateway package for the BFF and for merchants' own server code: the typed client of
 * both APIs, its token manager, the error family and the zod schemas of every resource.
 */
export * from './client';
export * from './errors';
export * from './token-manager';
export * from './schemas';
