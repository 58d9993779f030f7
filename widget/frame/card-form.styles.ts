/**
 * The card form's styles, as plain text: the BFF writes them (squeezed) into the frame page's
 * data block with the texts, so they weigh on the page, not on the frame bundle's budget; the
 * element adopts them as its shadow root's stylesheet.
 */
export const CARD_FORM_CSS = `
  :host {
    --accent: var(--checkout-accent-color, #0b57d0);
    --accent-text: var(--checkout-accent-text-color, #ffffff);
    --bg: var(--checkout-background-color, #ffffff);
    --text: var(--checkout-text-color, #1a1a1a);
    --muted: var(--checkout-muted-color, #5f6368);
    --border: var(--checkout-border-color, #767676);
    --error: var(--checkout-error-color, #b3261e);
    --focus: var(--checkout-focus-color, var(--accent));
    --radius: var(--checkout-radius, 6px);
    --space: var(--checkout-spacing, 12px);
    display: block;
    box-sizing: border-box;
    padding: 4px;
    background: var(--bg);
    color: var(--text);
    font-family: var(
      --checkout-font-family,
      system-ui,
      -apple-system,
      'Segoe UI',
      Roboto,
      sans-serif
    );
    font-size: var(--checkout-font-size, 16px);
    line-height: 1.4;
  }
  * {
    box-sizing: border-box;
  }
  main {
    display: grid;
    gap: var(--space);
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
  form {
    display: grid;
    gap: var(--space);
  }
  .row {
    display: grid;
    grid-template-columns: 1fr 1fr;
    gap: var(--space);
  }
  .field {
    display: grid;
    align-content: start;
    gap: 4px;
    min-width: 0;
  }
  label,
  legend {
    font-weight: 600;
    font-size: 0.875em;
  }
  .hint {
    margin: 0;
    color: var(--muted);
    font-size: 0.8125em;
  }
  .brands {
    display: flex;
    gap: 6px;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .sprite {
    display: none;
  }
  .mark {
    display: block;
    width: 32px;
    height: 20px;
  }
  .off {
    opacity: 0.3;
  }
  .with-mark {
    position: relative;
  }
  .with-mark input {
    padding-right: 52px;
  }
  .with-mark .mark {
    position: absolute;
    top: 50%;
    right: 12px;
    transform: translateY(-50%);
  }
  input,
  select {
    width: 100%;
    min-height: 44px;
    padding: 8px 12px;
    border: 1px solid var(--border);
    border-radius: var(--radius);
    background: var(--bg);
    color: var(--text);
    font: inherit;
  }
  input:disabled,
  select:disabled {
    background: color-mix(in srgb, var(--text) 6%, var(--bg));
    color: var(--muted);
    cursor: not-allowed;
  }
  input:focus-visible,
  select:focus-visible,
  button:focus-visible {
    outline: 2px solid var(--focus);
    outline-offset: 2px;
  }
  [aria-invalid='true'] {
    border-color: var(--error);
    border-width: 2px;
  }
  .error {
    margin: 0;
    color: var(--error);
    font-size: 0.875em;
  }
  .error:empty {
    display: none;
  }
  fieldset {
    margin: 0;
    padding: 0;
    border: 0;
    display: grid;
    gap: 4px;
  }
  .methods {
    display: flex;
    gap: var(--space);
  }
  .methods label {
    display: flex;
    align-items: center;
    gap: 8px;
    min-height: 44px;
    font-weight: 400;
    font-size: 1em;
    cursor: pointer;
  }
  .methods input {
    width: 20px;
    min-height: 20px;
    height: 20px;
    accent-color: var(--accent);
  }
  button {
    min-height: 48px;
    padding: 12px 16px;
    border: 0;
    border-radius: var(--radius);
    background: var(--accent);
    color: var(--accent-text);
    font: inherit;
    font-weight: 600;
    cursor: pointer;
  }
  button[disabled] {
    cursor: progress;
    opacity: 0.8;
  }
  .spinner {
    display: inline-block;
    width: 1em;
    height: 1em;
    margin-right: 8px;
    vertical-align: -2px;
    border: 2px solid currentColor;
    border-right-color: transparent;
    border-radius: 50%;
    animation: spin 0.8s linear infinite;
  }
  @keyframes spin {
    to {
      transform: rotate(1turn);
    }
  }
  .notice {
    margin: 0;
    padding: 12px;
    border-radius: var(--radius);
    border: 1px solid currentColor;
  }
  .notice:not(.shown) {
    padding: 0;
    border: 0;
  }
  .notice.failure {
    color: var(--error);
  }
  .done h2 {
    margin: 0 0 4px;
    font-size: 1.25em;
  }
`;
