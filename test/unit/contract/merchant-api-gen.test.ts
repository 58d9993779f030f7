import { readFileSync } from 'node:fs';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { DOC_PATH, generated, TYPES_PATH } from '../../../scripts/openapi';

const formatted = async (text: string, path: string) =>
  prettier.format(text, { ...(await prettier.resolveConfig(path)), filepath: path });

describe('the committed merchant API document and types', () => {
  it('are what `npm run openapi` makes of the routes now (run it after changing them)', async () => {
    const fresh = await generated();
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(await formatted(fresh.doc, DOC_PATH));
    expect(readFileSync(TYPES_PATH, 'utf8')).toBe(await formatted(fresh.types, TYPES_PATH));
  }, 30_000);
});
