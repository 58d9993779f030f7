/**
 * The brands' table in the frame: the one the BFF wrote into the page (the frame build resolves
 * `widget/card/brand-table.ts` here, vite.config.ts), so its prefix ranges stay out of the
 * bundle's budget.
 */
import type { BrandTable } from '../card/brand-table';
import { frameData } from './page-data';

export const BRAND_TABLE: BrandTable = frameData().brands;
