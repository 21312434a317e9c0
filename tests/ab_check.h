/* The end of every Check suite's main: run the suite, free the runner, and
 * turn the failure count into the exit status automake's driver reads
 * (0 pass, 1 fail). Header-only: included by the test programs. */
#pragma once
#include <check.h>

static inline int
ab_check_run (Suite *s)
{
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
