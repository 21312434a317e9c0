/* Shared by the libFuzzer targets of tests/fuzz: the entry point's
 * prototype and a check that aborts (a finding) with the failed condition. */
#pragma once
#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define AB_FUZZ_CHECK(cond)                                                         \
  do                                                                                \
    {                                                                               \
      if (!(cond))                                                                  \
        {                                                                           \
          fprintf (stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
          abort ();                                                                 \
        }                                                                           \
    }                                                                               \
  while (0)
