/* Access control for the REST surface: API keys from the Authorization
 * header (bare or "Bearer <key>"), checked against the catalog's hashed keys
 * and their grants before a handler runs; 401 without a valid key, 403
 * without the grant. Off unless enabled. */
#pragma once
#include "rest/router.h"
#include "engine/engine.h"

typedef struct _AbAuth AbAuth;

/* admin_key: the bootstrap key (from ACTIONBASE_ADMIN_KEY or the config),
 * allowed everything; may be NULL. */
AbAuth *ab_auth_new (AbEngine *engine, const gchar *admin_key);
void ab_auth_free (AbAuth *auth);
/* Installs the guard on the router. */
void ab_auth_install (AbAuth *auth, AbRouter *router);

/* What a route needs: accepted permission letters and the scope
 * ("*", "db" or "db.table"); open routes need nothing. A query document
 * (POST /graph/v3/query) needs its letters on every table it names: those
 * scopes are in `more`; so does a prepared query run by id (the tables of
 * its registration as this node holds it; "*" when it holds none). */
typedef struct {
  gboolean open;
  const gchar *letters;
  gchar *scope;
  GPtrArray *more; /* gchar*, or NULL */
} AbAuthNeed;

void ab_auth_need_of (AbEngine *engine, const AbHttpRequest *req, AbAuthNeed *need);
void ab_auth_need_clear (AbAuthNeed *need);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (AbAuthNeed, ab_auth_need_clear)
/* Whether a grant list (AbGrant array) satisfies a need; *missing (may be
 * NULL) is set to the first scope it does not cover. */
gboolean ab_auth_grants_allow (GArray *grants, const AbAuthNeed *need, const gchar **missing);
