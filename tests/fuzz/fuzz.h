/* Shared by the libFuzzer targets of tests/fuzz: the entry point's
 * prototype, a check that aborts (a finding) with the failed condition, and
 * GLib warnings and criticals made findings too. */
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

/* A GLib warning or critical (a GError set over another, a failed
 * g_return_if_fail) is a bug: abort, which libFuzzer reports with the
 * input, where G_DEBUG=fatal-warnings would trap without one. */
static inline void
ab_fuzz_log (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
  if ((level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) == 0)
    {
      g_log_default_handler (domain, level, message, data);
      return;
    }
  fprintf (stderr, "%s: %s\n", domain != NULL ? domain : "(app)", message);
  abort ();
}

/* Installed before main in every target (and in the unit tests that replay
 * their findings). */
__attribute__ ((constructor)) static void
ab_fuzz_fatal_warnings (void)
{
  g_log_set_default_handler (ab_fuzz_log, NULL);
}
