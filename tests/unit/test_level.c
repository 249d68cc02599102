/* rnndenoise — unit tests for dsp/dsp_level
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <check.h>

#include "check_main.h"
#include <glib.h>

#include "dsp/dsp_level.h"

#define RATE 48000
#define HOP 480

/* Feeds @n_frames frames of a sine at @rms (full scale 1.0) and returns
 * the tracker's gain in dB after them. */
static gdouble
gain_db_after_sine (DspLevel *level, gdouble rms, guint n_frames)
{
  gfloat frame[HOP];
  guint t, i;

  for (t = 0; t < n_frames; t++) {
    for (i = 0; i < HOP; i++)
      frame[i] = (gfloat) (rms * G_SQRT2
          * sin (2.0 * G_PI * 200.0 * (t * HOP + i) / RATE));
    dsp_level_update (level, frame, HOP);
  }
  return 20.0 * log10 (dsp_level_gain (level));
}

/* A steady signal at L dBFS gets the gain that brings it to the target,
 * from its first frame on, within the bounds. */
START_TEST (test_steady_level_gets_target)
{
  static const gdouble levels[] = { -47.0, -35.0, -27.0, -20.0 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (levels); i++) {
    DspLevel level;
    gdouble want = DSP_LEVEL_TARGET_DBFS - levels[i];

    dsp_level_init (&level, RATE, HOP);
    ck_assert_double_eq_tol (gain_db_after_sine (&level,
                                 pow (10.0, levels[i] / 20.0), 1),
        want, 0.01);
    ck_assert_double_eq_tol (gain_db_after_sine (&level,
                                 pow (10.0, levels[i] / 20.0), 500),
        want, 0.01);
  }
}
END_TEST

/* Gains stop at their bounds; digital silence leaves the gain at 1. */
START_TEST (test_bounds_and_silence)
{
  DspLevel level;
  gfloat zeros[HOP] = { 0 };
  guint t;

  dsp_level_init (&level, RATE, HOP);
  for (t = 0; t < 100; t++)
    dsp_level_update (&level, zeros, HOP);
  ck_assert_float_eq (dsp_level_gain (&level), 1.0f);
  ck_assert_double_eq_tol (gain_db_after_sine (&level, 1e-4, 10),
      DSP_LEVEL_MAX_GAIN_DB, 1e-3);
  dsp_level_init (&level, RATE, HOP);
  ck_assert_double_eq_tol (gain_db_after_sine (&level, 0.7, 10),
      DSP_LEVEL_MIN_GAIN_DB, 1e-3);
}
END_TEST

/* Pauses do not count: a talker at -40 dBFS with quiet frames 30 dB down
 * between words keeps the talker's gain, where a plain average would
 * raise it; the pauses only move the peak. */
START_TEST (test_pauses_do_not_count)
{
  DspLevel level;
  guint word;
  gdouble db = 0.0;

  dsp_level_init (&level, RATE, HOP);
  for (word = 0; word < 20; word++) {
    db = gain_db_after_sine (&level, pow (10.0, -40.0 / 20.0), 30);
    gain_db_after_sine (&level, pow (10.0, -70.0 / 20.0), 30);
  }
  ck_assert_double_eq_tol (db, DSP_LEVEL_TARGET_DBFS + 40.0, 0.01);
  ck_assert_double_eq_tol (20.0 * log10 (dsp_level_gain (&level)),
      DSP_LEVEL_TARGET_DBFS + 40.0, 0.01);
}
END_TEST

/* A talker who gets 20 dB quieter is followed: the peak decays to the new
 * level in 4 s, whose frames then count, and the louder past fades from
 * the mean power with the average's time constant (within 0.2 dB after
 * 30 s; half-way, in dB, after about 10 s). */
START_TEST (test_follows_a_level_change)
{
  DspLevel level;
  guint frames = (guint) (DSP_LEVEL_AVERAGE_S * RATE / HOP);

  dsp_level_init (&level, RATE, HOP);
  gain_db_after_sine (&level, pow (10.0, -25.0 / 20.0), frames);
  ck_assert_double_eq_tol (gain_db_after_sine (&level, pow (10.0, -45.0 / 20.0),
                               10 * frames),
      DSP_LEVEL_TARGET_DBFS + 45.0, 0.2);
}
END_TEST

/* Saved state loads back bit for bit and continues alike; damaged state
 * starts the tracker again instead of giving a wild gain. */
START_TEST (test_save_load)
{
  DspLevel a, b;
  gfloat saved[DSP_LEVEL_HISTORY_SIZE];
  gfloat bad[][DSP_LEVEL_HISTORY_SIZE] = {
    { 0.0f, -1.0f, 3.0f },
    { 0.0f, NAN, 3.0f },
    { NAN, 1e-3f, 3.0f },
    { 0.0f, 1e-3f, 1e9f },
    { 0.0f, 1e-3f, 2.5f },
    { 0.0f, 1e-3f, -1.0f },
  };
  guint i;

  dsp_level_init (&a, RATE, HOP);
  gain_db_after_sine (&a, 0.01, 37);
  dsp_level_save (&a, saved);
  dsp_level_init (&b, RATE, HOP);
  dsp_level_load (&b, saved);
  ck_assert (memcmp (&a, &b, sizeof a) == 0);
  ck_assert_double_eq (gain_db_after_sine (&a, 0.002, 11),
      gain_db_after_sine (&b, 0.002, 11));

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    DspLevel fresh;

    dsp_level_init (&fresh, RATE, HOP);
    dsp_level_load (&b, bad[i]);
    ck_assert_msg (memcmp (&b, &fresh, sizeof b) == 0, "bad state %u kept", i);
    ck_assert_float_eq (dsp_level_gain (&b), 1.0f);
  }
}
END_TEST

/* The constants follow the frame length: 16 kHz frames of 160 samples
 * decay and average over the same seconds. */
START_TEST (test_rate_independent)
{
  DspLevel a, b;

  dsp_level_init (&a, 48000, 480);
  dsp_level_init (&b, 16000, 160);
  ck_assert_float_eq (a.peak_decay, b.peak_decay);
  ck_assert_float_eq (a.max_count, b.max_count);
  ck_assert_float_eq_tol (a.max_count, DSP_LEVEL_AVERAGE_S * 100.0f, 0.5f);
}
END_TEST

static Suite *
level_suite (void)
{
  Suite *s = suite_create ("level");
  TCase *tc = tcase_create ("tracker");

  tcase_add_test (tc, test_steady_level_gets_target);
  tcase_add_test (tc, test_bounds_and_silence);
  tcase_add_test (tc, test_pauses_do_not_count);
  tcase_add_test (tc, test_follows_a_level_change);
  tcase_add_test (tc, test_save_load);
  tcase_add_test (tc, test_rate_independent);
  suite_add_tcase (s, tc);
  return s;
}

RNN_CHECK_MAIN (level_suite);
