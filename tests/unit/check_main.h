/* rnndenoise — unit tests: the main () of every Check program
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <stdlib.h>

#include <check.h>

/* Runs @suite_func's suite (honouring CK_RUN_SUITE, CK_RUN_CASE and
 * CK_FORK) and exits non-zero if a test failed, like GST_CHECK_MAIN. */
#define RNN_CHECK_MAIN(suite_func) \
  int main (void) \
  { \
    SRunner *sr = srunner_create (suite_func ()); \
    int n_failed; \
    srunner_run_all (sr, CK_NORMAL); \
    n_failed = srunner_ntests_failed (sr); \
    srunner_free (sr); \
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE; \
  }

#endif /* CHECK_MAIN_H */
