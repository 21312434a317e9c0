/* The hbase backend's URI: hbase://HOST[:PORT][/NAMESPACE][?table=NAME&
 * transport=framed|buffered&protocol=binary|compact&pool=N&timeout_ms=N&
 * regions=N&retries=N&compression=none|gz|lz4|snappy|zstd&share=N&share_wait_us=N]
 * into AbHbConfig. */
#include "store/hbase/hbase-private.h"

#include <string.h>

static gboolean
uri_fail (GError **error, const gchar *uri, const gchar *why)
{
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_URI,
               "bad hbase store URI '%s': %s (expected hbase://HOST:PORT/NAMESPACE"
               "?table=NAME&transport=framed|buffered&protocol=binary|compact&pool=N"
               "&timeout_ms=N&regions=N&retries=N&compression=none|gz|lz4|snappy|zstd&share=N"
               "&share_wait_us=N)",
               uri, why);
  return FALSE;
}

/* HBase allows [A-Za-z0-9_] in namespaces and also '-' and '.' in tables. */
static gboolean
valid_name (const gchar *s, gboolean table)
{
  if (*s == '\0' || (table && *s == '.'))
    return FALSE;
  for (; *s != '\0'; s++)
    if (!g_ascii_isalnum (*s) && *s != '_' && !(table && (*s == '-' || *s == '.')))
      return FALSE;
  return TRUE;
}

static gboolean
parse_uint (const gchar *text, guint min, guint max, guint *out)
{
  gchar *end = NULL;
  guint64 n;
  if (!g_ascii_isdigit (text[0]))
    return FALSE;
  n = g_ascii_strtoull (text, &end, 10);
  if (*end != '\0' || n < min || n > max)
    return FALSE;
  *out = (guint) n;
  return TRUE;
}

static gboolean
parse_compression (const gchar *v, gint *out)
{
  static const struct {
    const gchar *name;
    gint code;
  } names[] = {
    { "none", HB_T_COMPRESSION_ALGORITHM_NONE }, { "gz", HB_T_COMPRESSION_ALGORITHM_GZ },
    { "lz4", HB_T_COMPRESSION_ALGORITHM_LZ4 },   { "snappy", HB_T_COMPRESSION_ALGORITHM_SNAPPY },
    { "zstd", HB_T_COMPRESSION_ALGORITHM_ZSTD },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (v, names[i].name) == 0)
      {
        *out = names[i].code;
        return TRUE;
      }
  return FALSE;
}

static gboolean
parse_param (AbHbConfig *cfg, const gchar *param)
{
  const gchar *eq = strchr (param, '=');
  g_autofree gchar *key = eq ? g_strndup (param, eq - param) : NULL;
  const gchar *v = eq ? eq + 1 : NULL;
  if (key == NULL)
    return FALSE;
  if (strcmp (key, "table") == 0 && valid_name (v, TRUE))
    {
      g_free (cfg->table);
      cfg->table = g_strdup (v);
      return TRUE;
    }
  if (strcmp (key, "transport") == 0 && (strcmp (v, "framed") == 0 || strcmp (v, "buffered") == 0))
    return (cfg->framed = v[0] == 'f'), TRUE;
  if (strcmp (key, "protocol") == 0 && (strcmp (v, "binary") == 0 || strcmp (v, "compact") == 0))
    return (cfg->compact = v[0] == 'c'), TRUE;
  if (strcmp (key, "pool") == 0)
    return parse_uint (v, 1, 1024, &cfg->pool);
  if (strcmp (key, "timeout_ms") == 0)
    return parse_uint (v, 1, 3600000, &cfg->timeout_ms);
  if (strcmp (key, "regions") == 0)
    return parse_uint (v, 1, 256, &cfg->regions);
  if (strcmp (key, "retries") == 0)
    return parse_uint (v, 0, 10, &cfg->retries);
  if (strcmp (key, "share") == 0)
    return parse_uint (v, 0, 64, &cfg->share);
  if (strcmp (key, "share_wait_us") == 0)
    return parse_uint (v, 0, 100000, &cfg->share_wait_us);
  if (strcmp (key, "compression") == 0)
    return parse_compression (v, &cfg->compression);
  return FALSE;
}

/* "HOST", "HOST:PORT" or "[V6]:PORT". */
static gboolean
parse_authority (AbHbConfig *cfg, const gchar *auth)
{
  const gchar *colon;
  if (auth[0] == '[')
    {
      const gchar *close = strchr (auth, ']');
      if (close == NULL)
        return FALSE;
      cfg->host = g_strndup (auth + 1, close - auth - 1);
      colon = close[1] == ':' ? close + 1 : NULL;
      if (close[1] != '\0' && colon == NULL)
        return FALSE;
    }
  else
    {
      colon = strrchr (auth, ':');
      cfg->host = colon ? g_strndup (auth, colon - auth) : g_strdup (auth);
    }
  if (cfg->host[0] == '\0')
    return FALSE;
  return colon == NULL || parse_uint (colon + 1, 1, 65535, &cfg->port);
}

void
ab_hb_config_clear (AbHbConfig *cfg)
{
  g_clear_pointer (&cfg->host, g_free);
  g_clear_pointer (&cfg->ns, g_free);
  g_clear_pointer (&cfg->table, g_free);
}

gboolean
ab_hb_config_parse (AbHbConfig *cfg, const gchar *uri, const gchar *rest, GError **error)
{
  *cfg = (AbHbConfig){ .port = 9090,
                       .framed = FALSE,
                       .pool = 16,
                       .timeout_ms = 5000,
                       .regions = 16,
                       .retries = 2,
                       .share = 1,
                       .share_wait_us = 300,
                       .compression = HB_T_COMPRESSION_ALGORITHM_NONE };
  cfg->table = g_strdup ("actionbase");
  if (!g_str_has_prefix (rest, "//"))
    return uri_fail (error, uri, "needs // after hbase:");
  rest += 2;
  const gchar *q = strchr (rest, '?');
  g_autofree gchar *path = q ? g_strndup (rest, q - rest) : g_strdup (rest);
  gchar *slash = strchr (path, '/');
  if (slash != NULL)
    *slash++ = '\0';
  if (!parse_authority (cfg, path))
    return uri_fail (error, uri, "needs HOST[:PORT] with a port in 1-65535");
  cfg->ns = g_strdup (slash != NULL && *slash != '\0' ? slash : "default");
  if (!valid_name (cfg->ns, FALSE))
    return uri_fail (error, uri, "the namespace may hold only letters, digits and '_'");
  if (q != NULL && q[1] != '\0')
    {
      g_auto (GStrv) params = g_strsplit (q + 1, "&", -1);
      for (guint i = 0; params[i] != NULL; i++)
        if (!parse_param (cfg, params[i]))
          {
            g_autofree gchar *why = g_strdup_printf ("bad parameter '%s'", params[i]);
            return uri_fail (error, uri, why);
          }
    }
  return TRUE;
}
