import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../server/bff/idempotency';
import {
  answeredPage,
  escapeHtml,
  framePage,
  launcherPage,
  scriptJson,
} from '../../../server/bff/pages/html';
import { isHashedName } from '../../../server/bff/routes/static';
import { frameData, squeezeCss } from '../../../server/bff/pages/frame-data';
import { messagesFor } from '../../../widget/i18n';
import { fieldErrorTexts } from '../../../widget/frame/field-errors';
import { BRAND_TABLE } from '../../../widget/card/brand-table';
import { brandName } from '../../../widget/card/brand';

describe('escaping', () => {
  it('escapes markup and attribute quotes', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('JSON in a script cannot close the element or break out', () => {
    const out = scriptJson({ id: '</script><script>alert(1)</script>', s: '\u2028' });
    expect(out).not.toContain('</script>');
    expect(out).not.toContain('\u2028');
    expect(JSON.parse(out)).toEqual({ id: '</script><script>alert(1)</script>', s: '\u2028' });
  });
});

describe('pages', () => {
  it('the frame page escapes what it embeds; its one inline script is the boot', () => {
    const data = frameData('en');
    const html = framePage({
      sessionId: 'cs_"x',
      origin: 'https://a.example',
      locale: 'en',
      data,
      script: { src: '/frame/card-form.0123abcdef.js', integrity: 'sha384-a"b' },
      boot: 'self.booted=1',
    });
    expect(html).toContain('<meta name="checkout-session" content="cs_&quot;x">');
    // The hashed bundle with its SRI hash.
    expect(html).toContain(
      '<script type="module" src="/frame/card-form.0123abcdef.js" integrity="sha384-a&quot;b">',
    );
    // Without a src: a JSON data block, which browsers never run, and the boot, after it.
    expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toEqual([
      '<script type="application/json" id="card-form-data">',
      '<script>',
    ]);
    expect(html).toContain('<script>self.booted=1</script>\n</head>');
    const json = /id="card-form-data">([^<]*)<\/script>/.exec(html)?.[1] ?? '';
    expect(JSON.parse(json)).toEqual(data);
  });

  it('the frame data carries the texts of the locale, squeezed styles and the brand symbols', () => {
    const data = frameData('en');
    expect(data.messages.cardNumber).toBe('Card number');
    for (const id of ['visa', 'mastercard', 'amex', 'elo', 'hipercard']) {
      expect(data.sprite).toContain(`<symbol id="${id}" viewBox="0 0 32 20">`);
    }
    expect(data.css).toContain(':host{');
    expect(data.css).not.toMatch(/\n|\s[{};]|[{};]\s/);
    expect(squeezeCss('a , b {\n  color: red ;\n}')).toBe('a,b{color: red;}');
  });

  it("the frame data carries the brands' table, which the frame detects brands with", () => {
    // The frame bundle reads the table from the page (widget/frame/brand-table.ts): what the page
    // carries, through JSON, is the table the card helpers use.
    const brands = (JSON.parse(scriptJson(frameData('pt-BR'))) as ReturnType<typeof frameData>)
      .brands;
    expect(brands).toEqual(BRAND_TABLE);
    expect(brands.names.amex).toBe(brandName('amex'));
    expect(brands.lengths.visa).toEqual([13, 16, 19]);
  });

  it("the frame data carries each field's error texts of the locale", () => {
    for (const locale of ['pt-BR', 'en'] as const) {
      const data = JSON.parse(scriptJson(frameData(locale))) as ReturnType<typeof frameData>;
      expect(data.fieldErrors).toEqual(fieldErrorTexts(messagesFor(locale)));
    }
    expect(frameData('en').fieldErrors.expiry.past).toBe('The card has expired.');
  });

  it('the frame page data cannot close its script element', () => {
    const messages = { ...messagesFor('pt-BR'), cardNumber: '</script><script>alert(1)//' };
    const html = framePage({
      sessionId: 'cs_x',
      origin: 'https://a.example',
      locale: 'pt-BR',
      data: { ...frameData('pt-BR'), messages },
      script: { src: '/frame/card-form.js' },
    });
    expect(html).not.toContain('</script><script>alert');
  });

  it('the launcher carries PaReq, MD and TermUrl escaped, the script under the nonce', () => {
    const html = launcherPage({
      acsUrl: 'https://acs.example/challenge?a=1&b=2',
      pareq: 'p"q',
      md: 'm<d',
      termUrl: 'https://bff.example/checkout/challenge/ch_1/return',
      nonce: 'n0nce',
      locale: 'pt-BR',
    });
    expect(html).toContain('action="https://acs.example/challenge?a=1&amp;b=2"');
    expect(html).toContain('name="PaReq" value="p&quot;q"');
    expect(html).toContain('name="MD" value="m&lt;d"');
    expect(html).toContain('<script nonce="n0nce">');
    expect(html).toContain('<noscript><button type="submit">Continuar</button></noscript>');
  });

  it('the answer page posts only the challenge id, to the exact merchant origin', () => {
    const html = answeredPage({
      challengeId: 'ch_1',
      targetOrigin: 'https://shop.example',
      nonce: 'abc',
      locale: 'en',
    });
    expect(html).toContain(
      'window.parent.postMessage({"type":"challenge-answered","challengeId":"ch_1"}, "https://shop.example");',
    );
    expect(html).not.toContain("'*'");
  });
});

describe('isHashedName', () => {
  it.each([
    ['card-checkout.Bx3k9aQ1.js', true],
    ['card-checkout.3f9a1c2b.js', true],
    ['chunk-DhT6aB2c.js', true],
    ['card-checkout.js', false],
    ['card-form.js', false],
    ['manifest.json', false],
  ])('%s → %s', (name, hashed) => {
    expect(isHashedName(name)).toBe(hashed);
  });
});

describe('canonicalJson', () => {
  it('is independent of key order and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe(
      canonicalJson({ a: [{ d: 2 }], b: 1 }),
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }));
  });
});
