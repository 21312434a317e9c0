/* The fixed table descriptor of the libFuzzer targets, parsed from its JSON
 * create request the first time a target asks for it. */
#include <stdlib.h>
#include "fuzz.h"
#include "fuzz_fixture.h"

const AbTableDesc *
ab_fuzz_table (void)
{
  static AbTableDesc *table;
  if (table == NULL)
    {
      g_autoptr (JsonNode) node = json_from_string (AB_FUZZ_TABLE_JSON, NULL);
      table = ab_table_desc_from_create_request ("fz", NULL, node, NULL);
      AB_FUZZ_CHECK (table != NULL);
    }
  return table;
}
