/**
 * The route-table row a request matched, as a bounded label for metrics (`GET /api/v1/:customeralias/:databasealias/sites/:id`),
 * never the raw path: one series per row, whatever ids and aliases clients send.
 */
import { requestSlot } from '../request-slot.js';
import type { Route } from './routes.js';

const LABEL = requestSlot<string>('routeLabel');
const TENANT_PREFIX = '/api/v1/:customeralias/:databasealias';

export function setRouteLabel(request: Request, route: Route): void {
  LABEL.set(request, route.scope === 'root' ? route.path : `${TENANT_PREFIX}${route.path}`);
}

export const routeLabelOf = (request: Request): string | undefined => LABEL.get(request);
