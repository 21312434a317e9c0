/* Figures for the REST JSON writers (not a test): a typical scan answer
 * (25 edges) written N times with json-glib's builder + generator, with
 * AbJsonw and (when configured with yajl) yajl_gen; ops/s and ratios. */
#include <stdio.h>
#include <stdlib.h>
#include <json-glib/json-glib.h>
#include "model/jsonw.h"
#ifdef AB_HAVE_YAJL
#include <yajl/yajl_gen.h>
#endif

#define EDGES 25

typedef struct {
  gint64 version, source, target, created_at;
  gdouble weight;
  gboolean visible;
  gchar kind[16];
} BenchEdge;

static BenchEdge edges[EDGES];

static gsize
with_json_glib (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "edges");
  json_builder_begin_array (b);
  for (guint i = 0; i < EDGES; i++)
    {
      const BenchEdge *e = &edges[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "version");
      json_builder_add_int_value (b, e->version);
      json_builder_set_member_name (b, "source");
      json_builder_add_value (b, json_node_init_int (json_node_alloc (), e->source));
      json_builder_set_member_name (b, "target");
      json_builder_add_value (b, json_node_init_int (json_node_alloc (), e->target));
      json_builder_set_member_name (b, "properties");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "createdAt");
      json_builder_add_value (b, json_node_init_int (json_node_alloc (), e->created_at));
      json_builder_set_member_name (b, "kind");
      json_builder_add_value (b, json_node_init_string (json_node_alloc (), e->kind));
      json_builder_set_member_name (b, "visible");
      json_builder_add_value (b, json_node_init_boolean (json_node_alloc (), e->visible));
      json_builder_set_member_name (b, "weight");
      json_builder_add_value (b, json_node_init_double (json_node_alloc (), e->weight));
      json_builder_end_object (b);
      json_builder_set_member_name (b, "context");
      json_builder_begin_object (b);
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "count");
  json_builder_add_int_value (b, EDGES);
  json_builder_set_member_name (b, "total");
  json_builder_add_int_value (b, -1);
  json_builder_set_member_name (b, "offset");
  json_builder_add_string_value (b, "AQIDBAUGBwg");
  json_builder_set_member_name (b, "hasNext");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "context");
  json_builder_begin_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  gchar *text = json_to_string (root, FALSE);
  g_autoptr (GBytes) body = g_bytes_new_take (text, strlen (text));
  return g_bytes_get_size (body);
}

static gsize
with_jsonw (void)
{
  AbJsonw w;
  ab_jsonw_init (&w, 1024);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "edges");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < EDGES; i++)
    {
      const BenchEdge *e = &edges[i];
      ab_jsonw_begin_object (&w);
      ab_jsonw_member_int (&w, "version", e->version);
      ab_jsonw_member_int (&w, "source", e->source);
      ab_jsonw_member_int (&w, "target", e->target);
      ab_jsonw_key (&w, "properties");
      ab_jsonw_begin_object (&w);
      ab_jsonw_member_int (&w, "createdAt", e->created_at);
      ab_jsonw_member_string (&w, "kind", e->kind);
      ab_jsonw_member_bool (&w, "visible", e->visible);
      ab_jsonw_key (&w, "weight");
      ab_jsonw_double (&w, e->weight);
      ab_jsonw_end_object (&w);
      ab_jsonw_member_empty_object (&w, "context");
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_int (&w, "count", EDGES);
  ab_jsonw_member_int (&w, "total", -1);
  ab_jsonw_member_string (&w, "offset", "AQIDBAUGBwg");
  ab_jsonw_member_bool (&w, "hasNext", TRUE);
  ab_jsonw_member_empty_object (&w, "context");
  ab_jsonw_end_object (&w);
  g_autoptr (GBytes) body = ab_jsonw_finish (&w);
  return g_bytes_get_size (body);
}

#ifdef AB_HAVE_YAJL
static void
yajl_to_gstring (void *ctx, const char *s, size_t len)
{
  g_string_append_len (ctx, s, (gssize) len);
}

#define YSTR(g, s) yajl_gen_string (g, (const unsigned char *) (s), strlen (s))

static gsize
with_yajl (void)
{
  GString *out = g_string_sized_new (1024);
  yajl_gen g = yajl_gen_alloc (NULL);
  yajl_gen_config (g, yajl_gen_print_callback, yajl_to_gstring, out);
  yajl_gen_map_open (g);
  YSTR (g, "edges");
  yajl_gen_array_open (g);
  for (guint i = 0; i < EDGES; i++)
    {
      const BenchEdge *e = &edges[i];
      yajl_gen_map_open (g);
      YSTR (g, "version");
      yajl_gen_integer (g, e->version);
      YSTR (g, "source");
      yajl_gen_integer (g, e->source);
      YSTR (g, "target");
      yajl_gen_integer (g, e->target);
      YSTR (g, "properties");
      yajl_gen_map_open (g);
      YSTR (g, "createdAt");
      yajl_gen_integer (g, e->created_at);
      YSTR (g, "kind");
      YSTR (g, e->kind);
      YSTR (g, "visible");
      yajl_gen_bool (g, e->visible);
      YSTR (g, "weight");
      yajl_gen_double (g, e->weight);
      yajl_gen_map_close (g);
      YSTR (g, "context");
      yajl_gen_map_open (g);
      yajl_gen_map_close (g);
      yajl_gen_map_close (g);
    }
  yajl_gen_array_close (g);
  YSTR (g, "count");
  yajl_gen_integer (g, EDGES);
  YSTR (g, "total");
  yajl_gen_integer (g, -1);
  YSTR (g, "offset");
  YSTR (g, "AQIDBAUGBwg");
  YSTR (g, "hasNext");
  yajl_gen_bool (g, 1);
  YSTR (g, "context");
  yajl_gen_map_open (g);
  yajl_gen_map_close (g);
  yajl_gen_map_close (g);
  yajl_gen_free (g);
  g_autoptr (GBytes) body = g_string_free_to_bytes (out);
  return g_bytes_get_size (body);
}
#endif

typedef struct {
  const gchar *name;
  gsize (*run) (void);
} BenchWriter;

static gdouble
ops_per_second (const BenchWriter *bw, guint n, gsize *size)
{
  gint64 t0 = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    *size = bw->run ();
  gint64 us = MAX (g_get_monotonic_time () - t0, 1);
  return n * 1e6 / (gdouble) us;
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 20000;
  if (n == 0)
    {
      fprintf (stderr, "usage: json-bench [iterations > 0]\n");
      return 2;
    }
  for (guint i = 0; i < EDGES; i++)
    edges[i] = (BenchEdge){ .version = 1700000000000 + i,
                            .source = 1000,
                            .target = 200000 + i * 7,
                            .created_at = 1700000000123 + i,
                            .weight = 0.5 + i,
                            .visible = i % 2 == 0 };
  for (guint i = 0; i < EDGES; i++)
    g_snprintf (edges[i].kind, sizeof edges[i].kind, "like-%u", i);
  const BenchWriter writers[] = {
    { "json-glib", with_json_glib },
    { "jsonw", with_jsonw },
#ifdef AB_HAVE_YAJL
    { "yajl", with_yajl },
#endif
  };
  /* rounds interleave the writers and each keeps its best round, so that a
   * busy neighbour on a shared machine does not decide the ratios */
  enum { ROUNDS = 5 };
  gdouble best[G_N_ELEMENTS (writers)] = { 0 };
  gsize size[G_N_ELEMENTS (writers)] = { 0 };
  for (guint k = 0; k < G_N_ELEMENTS (writers); k++)
    ops_per_second (&writers[k], n / 10 + 1, &size[k]); /* warm-up */
  for (guint r = 0; r < ROUNDS; r++)
    for (guint k = 0; k < G_N_ELEMENTS (writers); k++)
      best[k] = MAX (best[k], ops_per_second (&writers[k], n / ROUNDS + 1, &size[k]));
  printf ("scan answer, %d edges, %u iterations each (best of %d rounds)\n", EDGES, n, ROUNDS);
  for (guint k = 0; k < G_N_ELEMENTS (writers); k++)
    printf ("%-10s %10.0f ops/s  %5zu bytes  x%.2f vs json-glib\n", writers[k].name, best[k],
            size[k], best[k] / best[0]);
  return 0;
}
