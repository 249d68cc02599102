/* rnndenoise — unit tests for dsp/dsp_samples
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include <check.h>

#include "check_main.h"
#include <glib.h>

#include "dsp/dsp_samples.h"

/* Every 16-bit value survives the round trip unchanged. */
START_TEST (test_s16_round_trip)
{
  gint16 *in = g_new (gint16, 65536), *out = g_new (gint16, 65536);
  gfloat *f = g_new (gfloat, 65536);
  gint v;

  for (v = -32768; v <= 32767; v++)
    in[v + 32768] = (gint16) v;
  dsp_samples_from_s16 (in, f, 65536);
  ck_assert_float_eq (f[0], -1.0f);
  ck_assert_float_eq (f[32768], 0.0f);
  dsp_samples_to_s16 (f, out, 65536);
  for (v = 0; v < 65536; v++)
    ck_assert_int_eq (out[v], in[v]);
  g_free (in);
  g_free (out);
  g_free (f);
}
END_TEST

/* Out-of-range floats saturate, halves round to even, NaN is silence. */
START_TEST (test_s16_saturation_and_nan)
{
  const gfloat in[] = { 1.0f, 2.0f, -1.0f, -3.0f, INFINITY, -INFINITY, NAN,
    0.5f / 32768.0f, 1.5f / 32768.0f };
  const gint16 expected[]
      = { 32767, 32767, -32768, -32768, 32767, -32768, 0, 0, 2 };
  gint16 out[G_N_ELEMENTS (in)];
  guint i;

  dsp_samples_to_s16 (in, out, G_N_ELEMENTS (in));
  for (i = 0; i < G_N_ELEMENTS (in); i++)
    ck_assert_int_eq (out[i], expected[i]);
}
END_TEST

/* The energy is summed in double precision: a million samples of 1e-4
 * after one of 1 keep their share, which a float sum would round away. */
START_TEST (test_energy)
{
  const gsize n = 1000001;
  gfloat *x = g_new (gfloat, n);
  gsize i;

  x[0] = 1.0f;
  for (i = 1; i < n; i++)
    x[i] = (i % 2) ? 1e-4f : -1e-4f;
  ck_assert_double_eq_tol (dsp_samples_energy (x, n),
      1.0 + 1e6 * (gdouble) 1e-4f * 1e-4f, 1e-9);
  ck_assert_double_eq (dsp_samples_energy (x, 0), 0.0);
  g_free (x);
}
END_TEST

static Suite *
samples_suite (void)
{
  Suite *s = suite_create ("samples");
  TCase *tc = tcase_create ("s16");

  tcase_add_test (tc, test_s16_round_trip);
  tcase_add_test (tc, test_s16_saturation_and_nan);
  suite_add_tcase (s, tc);
  tc = tcase_create ("energy");
  tcase_add_test (tc, test_energy);
  suite_add_tcase (s, tc);
  return s;
}

RNN_CHECK_MAIN (samples_suite);
