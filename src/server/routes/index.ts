// Every route of the HTTP API, in the order /openapi.json lists them.
import type { Route } from '../route.js';
import { contextRoutes } from './context-routes.js';
import { livingRoutes } from './living-routes.js';
import { loreRoutes } from './lore-routes.js';
import { narrativeRoutes } from './narrative-routes.js';
import { recallRoutes } from './recall-routes.js';
import { saveFileRoutes } from './save-file-routes.js';

/** The API's routes. */
export const API_ROUTES: readonly Route[] = [...narrativeRoutes, ...saveFileRoutes, ...livingRoutes, ...loreRoutes, ...recallRoutes, ...contextRoutes];
