/* Fixed inputs of the libFuzzer targets that need a table: one v3 create
 * request with a property of every type and an index, parsed once. */
#pragma once
#include "model/schema.h"

/* Database "fz", table "t": source long, target string, properties b..o of
 * every type (nullable), index "ix" on (l DESC, s ASC). */
#define AB_FUZZ_TABLE_JSON                                                                    \
  "{\"table\":\"t\",\"storage\":\"datastore://fz/t\",\"comment\":\"\",\"schema\":{"           \
  "\"type\":\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"\"},"                        \
  "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\",\"properties\":[" \
  "{\"name\":\"z\",\"type\":\"boolean\",\"nullable\":true,\"comment\":\"\"},"                 \
  "{\"name\":\"b\",\"type\":\"byte\",\"nullable\":true,\"comment\":\"\"},"                    \
  "{\"name\":\"h\",\"type\":\"short\",\"nullable\":true,\"comment\":\"\"},"                   \
  "{\"name\":\"i\",\"type\":\"int\",\"nullable\":true,\"comment\":\"\"},"                     \
  "{\"name\":\"l\",\"type\":\"long\",\"nullable\":true,\"comment\":\"\"},"                    \
  "{\"name\":\"f\",\"type\":\"float\",\"nullable\":true,\"comment\":\"\"},"                   \
  "{\"name\":\"d\",\"type\":\"double\",\"nullable\":true,\"comment\":\"\"},"                  \
  "{\"name\":\"s\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"},"                  \
  "{\"name\":\"o\",\"type\":\"object\",\"nullable\":true,\"comment\":\"\"}],"                 \
  "\"indexes\":[{\"index\":\"ix\",\"fields\":[{\"field\":\"l\",\"order\":\"DESC\"},"          \
  "{\"field\":\"s\",\"order\":\"ASC\"}]}]}}"

/* The descriptor of AB_FUZZ_TABLE_JSON (built once, never freed). */
const AbTableDesc *ab_fuzz_table (void);
