/* rnndenoise — element tests (gst-check + GstHarness)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reference outputs come from the dsp library run directly on the same
 * model file the plugin embeds (RNNDENOISE_MODEL), so "bit-identical" here
 * means: the element adds nothing to and loses nothing from the processor.
 * Run one test with GST_CHECKS=test_name. The tests are in one file per
 * concern (rnndenoise-pads.c, -stream.c, -state.c, -errors.c, -properties.c,
 * -contract.c, -concurrency.c) and share rnndenoise-helpers.c; this file
 * makes them one suite.
 */
#include "config.h"

#include "rnndenoise-helpers.h"

static Suite *
rnndenoise_suite (void)
{
  Suite *s = suite_create ("rnndenoise");

  rnndenoise_add_pad_tests (s);
  rnndenoise_add_stream_tests (s);
  rnndenoise_add_state_tests (s);
  rnndenoise_add_error_tests (s);
  rnndenoise_add_property_tests (s);
  rnndenoise_add_contract_tests (s);
  rnndenoise_add_concurrency_tests (s);
  rnndenoise_add_rate_tests (s);
  return s;
}

GST_CHECK_MAIN (rnndenoise);
