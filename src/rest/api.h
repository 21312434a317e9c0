/* The Actionbase REST API: registers every route (metadata v2/v3, mutation,
 * query) on a router, each handler a thin translation between HTTP and the
 * engine. GErrors become HTTP statuses here and nowhere else. */
#pragma once
#include "rest/router.h"
#include "engine/engine.h"

void ab_api_register (AbRouter *router, AbEngine *engine);
