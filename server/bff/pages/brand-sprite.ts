/**
 * The card brands' marks as SVG symbols (`<symbol id="visa">`…), sent with the frame page's data
 * and kept out of the frame's JS budget. Simple marks drawn for this product (brand colors and
 * names), 32×20 each. They are drawn inline, not from an SVG file: `<use href="file.svg#visa">`
 * made the frame fetch the file and build a document of it on the main thread (≈ 5–10 ms in a
 * trace of test/bench/checkout-ready.ts) while the form was drawing; ≈ 0.5 KB gzip inline.
 */
const FONT = 'font-family="Arial,Helvetica,sans-serif" font-weight="700" text-anchor="middle"';

const SYMBOLS: Record<string, string> = {
  visa: `<rect width="32" height="20" rx="3" fill="#1a1f71"/><text x="16" y="14" ${FONT} font-size="9" font-style="italic" fill="#fff">VISA</text>`,
  mastercard: `<rect width="32" height="20" rx="3" fill="#252525"/><circle cx="12.5" cy="10" r="6" fill="#eb001b"/><circle cx="19.5" cy="10" r="6" fill="#f79e1b" fill-opacity=".85"/>`,
  amex: `<rect width="32" height="20" rx="3" fill="#1f72cd"/><text x="16" y="13.5" ${FONT} font-size="7.5" fill="#fff">AMEX</text>`,
  elo: `<rect width="32" height="20" rx="3" fill="#000"/><circle cx="7" cy="6" r="1.8" fill="#ffcb05"/><circle cx="7" cy="10" r="1.8" fill="#00a4e0"/><circle cx="7" cy="14" r="1.8" fill="#ef4123"/><text x="19" y="14" ${FONT} font-size="10" fill="#fff">elo</text>`,
  hipercard: `<rect width="32" height="20" rx="3" fill="#b3131b"/><text x="16" y="12.5" ${FONT} font-size="5.6" fill="#fff">Hipercard</text>`,
};

/** The symbols, for the inside of one `<svg>` of the form (`<use href="#visa">`). */
export const BRAND_SYMBOLS = Object.entries(SYMBOLS)
  .map(([id, body]) => `<symbol id="${id}" viewBox="0 0 32 20">${body}</symbol>`)
  .join('');
