import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../contract/merchant-api.gen';

export type MerchantApiClient = Client<paths>;

/**
 * The typed client of the merchant API, for the merchant's own server: openapi-fetch over the
 * types openapi-typescript generated from the BFF's OpenAPI document (`npm run openapi`), so a
 * path, a parameter or a field that does not exist fails to compile. Sends the merchant secret
 * on every call; answers `{data}` or `{error}` (the API's error object), never throws on 4xx.
 */
export function createMerchantApiClient(opts: {
  bffUrl: string;
  merchantSecret: string;
  fetch?: typeof fetch;
}): MerchantApiClient {
  const doFetch = opts.fetch ?? fetch;
  return createClient<paths>({
    baseUrl: opts.bffUrl.replace(/\/$/, ''),
    headers: { authorization: `Bearer ${opts.merchantSecret}`, accept: 'application/json' },
    fetch: (req: Request) => doFetch(req),
  });
}
