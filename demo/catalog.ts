/** The storefront's products. Prices are in cents and live only on the server. */
export interface Product {
  id: string;
  name: string;
  description: string;
  /** Cents (BRL). */
  price: number;
}

export const PRODUCTS: readonly Product[] = [
  {
    id: 'caneca',
    name: 'Caneca de cerâmica',
    description: 'Caneca esmaltada de 350 ml, feita à mão em Cunha (SP).',
    price: 4990,
  },
  {
    id: 'camiseta',
    name: 'Camiseta de algodão',
    description: 'Algodão orgânico, corte reto, tamanhos P a GG.',
    price: 7990,
  },
  {
    id: 'caderno',
    name: 'Caderno pautado',
    description: 'Capa dura, 160 páginas de papel pólen 90 g.',
    price: 2450,
  },
  {
    id: 'fone',
    name: 'Fone de ouvido sem fio',
    description: 'Bluetooth 5.3, 30 horas de bateria, estojo com carga USB-C.',
    price: 19900,
  },
];

export function findProduct(id: string): Product | undefined {
  return PRODUCTS.find((p) => p.id === id);
}

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** `4990` → `R$ 49,90` (with the non-breaking space pt-BR uses). */
export function formatBrl(cents: number): string {
  return BRL.format(cents / 100);
}
