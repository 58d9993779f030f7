import { html, raw } from 'hono/html';

/**
 * Each product's picture, drawn in inline SVG (no image files to serve): decorative, so hidden
 * from assistive technology; the product's name is its heading.
 */
const ART: Record<string, string> = {
  caneca: `<rect x="26" y="24" width="40" height="48" rx="6" fill="#c8553d"/><path d="M66 34h8a10 10 0 0 1 0 20h-8" fill="none" stroke="#c8553d" stroke-width="6"/><path d="M38 14c0 6 6 6 6 12M50 14c0 6 6 6 6 12" stroke="#8a8a8a" stroke-width="3" fill="none" stroke-linecap="round"/>`,
  camiseta: `<path d="M30 20l14-6h12l14 6 14 14-10 10-8-6v44H34V38l-8 6-10-10z" fill="#2f6690"/><path d="M44 14a6 6 0 0 0 12 0" fill="#f4f1ea"/>`,
  caderno: `<rect x="26" y="14" width="48" height="64" rx="4" fill="#3a7d44"/><rect x="32" y="14" width="4" height="64" fill="#24562c"/><rect x="42" y="28" width="24" height="6" rx="2" fill="#f4f1ea"/>`,
  fone: `<path d="M24 56V48a26 26 0 0 1 52 0v8" fill="none" stroke="#33333d" stroke-width="6"/><rect x="18" y="52" width="16" height="24" rx="6" fill="#6c5b7b"/><rect x="66" y="52" width="16" height="24" rx="6" fill="#6c5b7b"/>`,
};

export function productArt(productId: string) {
  return html`<svg
    class="art"
    viewBox="0 0 100 92"
    aria-hidden="true"
    focusable="false"
    xmlns="http://www.w3.org/2000/svg"
  >
    <rect width="100" height="92" fill="#f4f1ea" />
    ${raw(ART[productId] ?? '')}
  </svg>`;
}

/** The storefront's favicon (a shopping bag), as a data URL: no extra request. */
export const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="5" y="10" width="22" height="19" rx="3" fill="#0b5394"/><path d="M11 12V9a5 5 0 0 1 10 0v3" fill="none" stroke="#0b5394" stroke-width="2.5"/></svg>`,
)}`;
