/* Console HTTP client: one libsoup 3 session per console, requests carrying
 * the Authorization header, JSON bodies both ways, and one error sentence per
 * failed call (the server's `message` when it sent one). */
#pragma once
#include <glib.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

typedef struct {
  SoupSession *session;
  gchar *base;     /* "http://host:port", no trailing slash */
  gchar *auth_key; /* sent as Authorization; "" when not given */
  gboolean debug;  /* log every request and answer on stderr */
} AbClient;

typedef struct {
  guint status;   /* HTTP status; 0 when no answer came */
  JsonNode *json; /* parsed body (NULL when empty or not JSON) */
  gchar *error;   /* why the call failed; NULL on success */
} AbResponse;

AbClient *ab_client_new (const gchar *base, const gchar *auth_key, guint timeout_s);
void ab_client_free (AbClient *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbClient, ab_client_free)

/* Sends method + path (already escaped) with an optional JSON body. TRUE when
 * the answer is 2xx, JSON, and not a DdlStatus with status ERROR; otherwise
 * out->error says why. out must be cleared with ab_response_clear. */
gboolean ab_client_call (AbClient *c, const gchar *method, const gchar *path, JsonNode *body,
                         AbResponse *out);
/* The same with a printf-style path. */
gboolean ab_client_callf (AbClient *c, const gchar *method, JsonNode *body, AbResponse *out,
                          const gchar *path_fmt, ...) G_GNUC_PRINTF (5, 6);
void ab_response_clear (AbResponse *r);

/* Percent-encodes a path segment or query value. */
gchar *ab_client_escape (const gchar *text);
/* Member of the response object, or NULL. */
JsonNode *ab_response_member (const AbResponse *r, const gchar *name);
