/* libFuzzer target: metadata request bodies: the strict JSON parser, then
 * every create/update parser of the v3 and v2 APIs on the same document. A
 * table descriptor that parses must survive its persisted form (the catalog
 * stores to_json and reads it back with from_json) and the v2 label form. */
#include "fuzz.h"
#include "fuzz_fixture.h"
#include "model/types.h"

static void
check_table (AbTableDesc *t)
{
  if (t == NULL)
    return;
  g_autoptr (JsonNode) stored = ab_table_desc_to_json (t);
  g_autoptr (AbTableDesc) back = ab_table_desc_from_json (stored, NULL);
  AB_FUZZ_CHECK (back != NULL);
  AB_FUZZ_CHECK (back->schema->kind == t->schema->kind
                 && back->schema->fields->len == t->schema->fields->len);
  g_autoptr (JsonNode) v2 = ab_table_desc_to_v2_label (t);
  AB_FUZZ_CHECK (v2 != NULL);
  ab_table_desc_unref (t);
}

static void
drop_database (AbDatabaseDesc *d)
{
  if (d != NULL)
    ab_database_desc_unref (d);
}

static void
drop_alias (AbAliasDesc *a)
{
  if (a != NULL)
    ab_alias_desc_unref (a);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (JsonNode) n = ab_model_json_parse ((const gchar *) data, (gssize) size, NULL);
  if (n == NULL)
    return 0;
  check_table (ab_table_desc_from_create_request ("fz", NULL, n, NULL));
  check_table (ab_table_desc_from_create_request ("fz", "t", n, NULL));
  check_table (ab_table_desc_from_v2_label ("fz", "lbl", n, NULL));
  check_table (ab_table_desc_apply_update (ab_fuzz_table (), n, NULL));
  drop_database (ab_database_desc_from_create_request (NULL, n, NULL));
  AbDatabaseDesc *d = ab_database_desc_from_v2_service ("fz", n, NULL);
  if (d != NULL)
    {
      json_node_unref (ab_database_desc_to_json (d));
      drop_database (ab_database_desc_apply_update (d, n, NULL));
      ab_database_desc_unref (d);
    }
  AbAliasDesc *a = ab_alias_desc_from_create_request ("fz", NULL, n, NULL);
  if (a != NULL)
    {
      drop_alias (ab_alias_desc_apply_update (a, n, NULL));
      ab_alias_desc_unref (a);
    }
  drop_alias (ab_alias_desc_from_v2_alias ("fz", "al", n, NULL));
  return 0;
}
