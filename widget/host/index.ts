/**
 * Script-tag entry: registers `<card-checkout>` (once, even if the script is included twice)
 * and exports the element and event classes for module users.
 */
import { CardCheckout } from './card-checkout';

export { CardCheckout } from './card-checkout';
export * from './events';

if (!customElements.get('card-checkout')) customElements.define('card-checkout', CardCheckout);
