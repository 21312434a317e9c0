/* libFuzzer target: mutation request bodies end to end below REST: the
 * strict JSON parser (ab_model_json_parse), then ab_engine_mutate on a fresh
 * memory: store holding the fixed edge table and a multi-edge table (a fresh
 * engine per input keeps every finding reproducible from its input alone).
 * The first byte picks the table and the lock option. */
#include "catalog/catalog.h"
#include "engine/engine.h"
#include "fuzz.h"
#include "fuzz_fixture.h"
#include "model/types.h"

#define MULTI_TABLE_JSON                                                                           \
  "{\"table\":\"m\",\"storage\":\"datastore://fz/m\",\"comment\":\"\",\"schema\":{"                \
  "\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"string\",\"comment\":\"\"},"                         \
  "\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{\"type\":\"string\",\"comment\":" \
  "\"\"},"                                                                                         \
  "\"properties\":[{\"name\":\"at\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"}],"      \
  "\"direction\":\"BOTH\",\"indexes\":[{\"index\":\"at\",\"fields\":[{\"field\":\"at\",\"order\":" \
  "\"DESC\"}]}]}}"

static void
create_table (AbCatalog *cat, const gchar *json)
{
  g_autoptr (JsonNode) node = json_from_string (json, NULL);
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request ("fz", NULL, node, NULL);
  AB_FUZZ_CHECK (proto != NULL);
  g_autoptr (AbTableDesc) t = ab_catalog_create_table (cat, proto, "fuzz", NULL);
  AB_FUZZ_CHECK (t != NULL);
}

static AbEngine *
engine_new (void)
{
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  cfg.run_applier = FALSE;
  cfg.mutation_threads = 1;
  cfg.lock_retries = 2;
  cfg.lock_backoff_ms = 1;
  AbEngine *engine = ab_engine_open ("memory:", &cfg, NULL);
  AB_FUZZ_CHECK (engine != NULL);
  AbCatalog *cat = ab_engine_catalog (engine);
  g_autoptr (AbDatabaseDesc) db = ab_catalog_create_database (cat, "fz", "", "fuzz", NULL);
  AB_FUZZ_CHECK (db != NULL);
  create_table (cat, AB_FUZZ_TABLE_JSON);
  create_table (cat, MULTI_TABLE_JSON);
  return engine;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 2)
    return 0;
  g_autoptr (JsonNode) body
      = ab_model_json_parse ((const gchar *) data + 1, (gssize) size - 1, NULL);
  if (body == NULL)
    return 0;
  AbEngine *engine = engine_new ();
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "fz";
  o.multi_edge = data[0] & 1;
  o.table = o.multi_edge ? "m" : "t";
  o.lock = (data[0] & 2) == 0;
  o.include_context = (data[0] & 4) != 0;
  g_autoptr (GError) error = NULL;
  GArray *results = ab_engine_mutate (engine, &o, body, &error);
  AB_FUZZ_CHECK ((results == NULL) == (error != NULL));
  if (results != NULL)
    g_array_unref (results);
  ab_engine_close (engine);
  return 0;
}
