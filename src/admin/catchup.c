/* An online copy's catch-up: finds where the source server's file WAL stood
 * before the copy's snapshot, then replays every record from there into the
 * target through the engine (version-idempotent), saving its WAL position. */
#include <stdio.h>
#include <json-glib/json-glib.h>
#include "admin/admin-private.h"
#include "engine/engine.h"
#include "store/store.h"
#include "wal/sink.h"

#define CATCH_UP_CHUNK 4096

GByteArray *
ab_admin_catch_up_start (const gchar *wal_uri, gint64 since_ms, GError **error)
{
  g_autoptr (GError) local = NULL;
  AbSink *wal = ab_sink_open_follower (wal_uri, error);
  if (wal == NULL)
    return NULL;
  GBytes *pos = ab_sink_position_since (wal, since_ms, error);
  ab_sink_close (wal);
  if (pos == NULL)
    return NULL;
  gsize len;
  const guint8 *p = g_bytes_get_data (pos, &len);
  GByteArray *out = g_byte_array_new ();
  g_byte_array_append (out, p, (guint) len);
  g_bytes_unref (pos);
  return out;
}

static void
set_position (AbCatchUp *cu, GBytes *position)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (position, &len);
  g_byte_array_set_size (cu->position, 0);
  g_byte_array_append (cu->position, p, (guint) len);
}

/* The "ts" (wall-clock ms when built) of a WAL record, 0 when unreadable. */
static gint64
record_ts (const AbSinkEntry *e)
{
  g_autoptr (JsonNode) n = json_from_string (e->record.value, NULL);
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return 0;
  return json_object_get_int_member_with_default (json_node_get_object (n), "ts", 0);
}

/* Reads the WAL from cu->position to its end as it stands, a chunk at a time:
 * each chunk is applied, then its position saved. A run stops after the chunk
 * that reaches records built after it started: while clients write faster
 * than it applies it still ends, and the next run goes on from there. */
static gboolean
replay (AbEngine *engine, AbSinkReader *reader, AbCatchUp *cu, AbProgress *progress, GError **error)
{
  gint64 started_ms = g_get_real_time () / 1000;
  for (;;)
    {
      g_autoptr (GPtrArray) entries
          = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_entry_free);
      if (!ab_sink_read (reader, CATCH_UP_CHUNK, 0, entries, error))
        return FALSE;
      if (entries->len == 0)
        return TRUE;
      /* No edge locks: nothing else writes the target until the cut-over. */
      if (!ab_engine_replay_wal (engine, entries, cu->since_ms, FALSE, cu->lanes, &cu->applied,
                                 &cu->skipped, error))
        return FALSE;
      set_position (cu, ((AbSinkEntry *) entries->pdata[entries->len - 1])->position);
      cu->read += entries->len;
      ab_progress_add (progress, entries->len);
      if (!cu->save (cu->user, error))
        return FALSE;
      if (record_ts (entries->pdata[entries->len - 1]) > started_ms)
        return TRUE;
    }
}

gboolean
ab_admin_catch_up (AbStore *to, AbCatchUp *cu, GError **error)
{
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  cfg.run_applier = FALSE;
  cfg.insert_merge_databases = cu->insert_merge;
  AbEngine *engine = ab_engine_open_store (ab_store_ref (to), &cfg, error);
  if (engine == NULL)
    return FALSE;
  AbSink *wal = ab_sink_open_follower (cu->wal_uri, error);
  g_autoptr (GBytes) from = g_bytes_new (cu->position->data, cu->position->len);
  AbSinkReader *reader = wal != NULL ? ab_sink_open_reader (wal, from, error) : NULL;
  gboolean ok = FALSE;
  if (reader != NULL)
    {
      g_autoptr (AbProgress) progress = ab_progress_new ("catch-up", 0);
      ok = replay (engine, reader, cu, progress, error);
      /* The cache rows the replay wrote are trimmed now: the engine's
       * background trimming would not outlive this command. */
      guint trimmed = 0, expired = 0;
      ok = ok && ab_engine_maintain (engine, &trimmed, &expired, error);
      if (ok)
        ab_progress_finish (g_steal_pointer (&progress));
      ab_sink_close_reader (reader);
    }
  if (wal != NULL)
    ab_sink_close (wal);
  ab_engine_close (engine);
  if (!ok)
    g_prefix_error (error, "catching up from the WAL %s: ", cu->wal_uri);
  return ok;
}
