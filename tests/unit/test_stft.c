/* rnndenoise — unit tests for dsp/dsp_fft and dsp/dsp_stft
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <check.h>

#include "check_main.h"
#include "model_helper.h"
#include <glib.h>

#include "dsp/dsp_fft.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_stft.h"

#define N_FRAMES 60

/* Fills @len samples: 0 = uniform noise in [-1, 1) (fixed seed), 1 = a sine
 * sweep from 50 Hz to 0.45 * rate at amplitude 0.8. */
static void
make_signal (guint kind, guint rate, gfloat *x, guint len)
{
  guint n;

  if (kind == 0) {
    GRand *rand = g_rand_new_with_seed (1234);

    for (n = 0; n < len; n++)
      x[n] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
    g_rand_free (rand);
  } else {
    double f0 = 50.0, f1 = 0.45 * rate, dur = (double) len / rate;

    for (n = 0; n < len; n++) {
      double t = (double) n / rate;

      x[n] = (gfloat) (0.8
          * sin (2 * G_PI * (f0 * t + (f1 - f0) * t * t / (2 * dur))));
    }
  }
}

/* Analysis then synthesis with unchanged spectra over @n_frames frames. */
static void
run_identity (DspStft *stft, guint hop, const gfloat *in, gfloat *out,
    guint n_frames)
{
  gfloat spectrum[2 * DSP_MAX_BINS];
  guint t;

  for (t = 0; t < n_frames; t++) {
    dsp_stft_analyze (stft, in + t * hop, spectrum);
    dsp_stft_synthesize (stft, spectrum, out + t * hop);
  }
}

/* ---- FFT ---- */

START_TEST (test_fft_impulse)
{
  g_autoptr (DspFft) fft = dsp_fft_new (960);
  gfloat in[960] = { 0.0f }, out[2 * 481];
  guint k;

  ck_assert_uint_eq (dsp_fft_get_len (fft), 960);
  in[0] = 1.0f;
  dsp_fft_forward (fft, in, out);
  for (k = 0; k <= 480; k++) {
    ck_assert_float_eq_tol (out[2 * k], 1.0f, 1e-6f);
    ck_assert_float_eq_tol (out[2 * k + 1], 0.0f, 1e-6f);
  }
}
END_TEST

START_TEST (test_fft_round_trip_scale)
{
  g_autoptr (DspFft) fft = dsp_fft_new (320);
  gfloat in[320], spec[2 * 161], back[320];
  guint n;

  make_signal (0, 16000, in, 320);
  dsp_fft_forward (fft, in, spec);
  ck_assert_float_eq_tol (spec[1], 0.0f, 1e-6f);
  dsp_fft_inverse (fft, spec, back);
  for (n = 0; n < 320; n++)
    ck_assert_float_eq_tol (back[n], 320.0f * in[n], 1e-3f);
}
END_TEST

/* ---- lifecycle ---- */

START_TEST (test_stft_lifecycle)
{
  DspFrameConfig cfg;
  DspStft *stft;

  model_helper_default_config (&cfg, 48000);
  stft = dsp_stft_new (&cfg);
  ck_assert_ptr_nonnull (stft);
  ck_assert_uint_eq (dsp_stft_get_delay (stft), 480);
  ck_assert_uint_eq (dsp_stft_history_size (stft), 960);
  dsp_stft_free (stft);
  dsp_stft_free (NULL);
  dsp_fft_free (NULL);
}
END_TEST

START_TEST (test_stft_reset_equals_new)
{
  DspFrameConfig cfg;
  g_autoptr (DspStft) a = NULL;
  g_autoptr (DspStft) b = NULL;
  gfloat *in, *out_a, *out_b;
  guint len;

  model_helper_default_config (&cfg, 16000);
  len = N_FRAMES * cfg.hop;
  in = g_new (gfloat, len);
  out_a = g_new (gfloat, len);
  out_b = g_new (gfloat, len);
  make_signal (0, cfg.sample_rate, in, len);
  a = dsp_stft_new (&cfg);
  b = dsp_stft_new (&cfg);

  run_identity (a, cfg.hop, in + len / 2, out_a, N_FRAMES / 2);
  dsp_stft_reset (a);
  run_identity (a, cfg.hop, in, out_a, N_FRAMES);
  run_identity (b, cfg.hop, in, out_b, N_FRAMES);
  ck_assert_int_eq (memcmp (out_a, out_b, sizeof (gfloat) * len), 0);

  g_free (in);
  g_free (out_a);
  g_free (out_b);
}
END_TEST

/* ---- perfect reconstruction: {48 kHz, 16 kHz} x {noise, sweep} ---- */

START_TEST (test_stft_reconstruction)
{
  static const guint rates[] = { 48000, 16000 };
  DspFrameConfig cfg;
  g_autoptr (DspStft) stft = NULL;
  gfloat *in, *out;
  guint len, delay, n;
  gfloat max_err = 0.0f;

  model_helper_default_config (&cfg, rates[_i / 2]);
  stft = dsp_stft_new (&cfg);
  delay = dsp_stft_get_delay (stft);
  ck_assert_uint_eq (delay, cfg.window - cfg.hop);
  len = N_FRAMES * cfg.hop;
  in = g_new (gfloat, len);
  out = g_new (gfloat, len);
  make_signal (_i % 2, cfg.sample_rate, in, len);

  run_identity (stft, cfg.hop, in, out, N_FRAMES);
  for (n = 0; n < delay; n++)
    ck_assert_float_eq_tol (out[n], 0.0f, 1e-6f);
  for (n = delay; n < len; n++)
    max_err = MAX (max_err, fabsf (out[n] - in[n - delay]));
  ck_assert_float_lt (max_err, 1e-5f);

  g_free (in);
  g_free (out);
}
END_TEST

/* ---- history export / import ---- */

START_TEST (test_stft_history_continuation)
{
  static const guint rates[] = { 48000, 16000 };
  DspFrameConfig cfg;
  g_autoptr (DspStft) whole = NULL;
  g_autoptr (DspStft) first = NULL;
  g_autoptr (DspStft) second = NULL;
  gfloat *in, *ref, *out, *history, *history2;
  guint len, cut = 17;
  gsize size;

  model_helper_default_config (&cfg, rates[_i]);
  len = N_FRAMES * cfg.hop;
  in = g_new (gfloat, len);
  ref = g_new (gfloat, len);
  out = g_new (gfloat, len);
  make_signal (0, cfg.sample_rate, in, len);
  whole = dsp_stft_new (&cfg);
  first = dsp_stft_new (&cfg);
  second = dsp_stft_new (&cfg);
  size = dsp_stft_history_size (first);
  history = g_new (gfloat, size);
  history2 = g_new (gfloat, size);

  run_identity (whole, cfg.hop, in, ref, N_FRAMES);

  run_identity (first, cfg.hop, in, out, cut);
  dsp_stft_save_history (first, history);
  /* The target has run another stream: loading must replace everything. */
  run_identity (second, cfg.hop, in + cfg.hop, out + cut * cfg.hop, 5);
  dsp_stft_load_history (second, history);
  dsp_stft_save_history (second, history2);
  ck_assert_int_eq (memcmp (history, history2, sizeof (gfloat) * size), 0);
  run_identity (second, cfg.hop, in + cut * cfg.hop, out + cut * cfg.hop,
      N_FRAMES - cut);

  ck_assert_int_eq (memcmp (ref, out, sizeof (gfloat) * len), 0);

  g_free (in);
  g_free (ref);
  g_free (out);
  g_free (history);
  g_free (history2);
}
END_TEST

/* ---- threads: own DspStft per thread, planner under the lock ---- */

#define N_THREADS 4
#define N_REPEATS 8

typedef struct
{
  const DspFrameConfig *cfg;
  const gfloat *in;
  gfloat *out;
} ThreadJob;

static gpointer
thread_run (gpointer data)
{
  ThreadJob *job = data;
  guint r;

  /* Make and free several times so plan creation and destruction race. */
  for (r = 0; r < N_REPEATS; r++) {
    DspStft *stft = dsp_stft_new (job->cfg);

    run_identity (stft, job->cfg->hop, job->in, job->out, N_FRAMES);
    dsp_stft_free (stft);
  }
  return NULL;
}

START_TEST (test_stft_threads)
{
  DspFrameConfig cfg;
  g_autoptr (DspStft) stft = NULL;
  ThreadJob jobs[N_THREADS];
  GThread *threads[N_THREADS];
  gfloat *in, *ref;
  guint len, i;

  model_helper_default_config (&cfg, 48000);
  len = N_FRAMES * cfg.hop;
  in = g_new (gfloat, len);
  ref = g_new (gfloat, len);
  make_signal (1, cfg.sample_rate, in, len);
  stft = dsp_stft_new (&cfg);
  run_identity (stft, cfg.hop, in, ref, N_FRAMES);

  for (i = 0; i < N_THREADS; i++) {
    jobs[i].cfg = &cfg;
    jobs[i].in = in;
    jobs[i].out = g_new (gfloat, len);
    threads[i] = g_thread_new ("stft", thread_run, &jobs[i]);
  }
  for (i = 0; i < N_THREADS; i++) {
    g_thread_join (threads[i]);
    ck_assert_int_eq (memcmp (jobs[i].out, ref, sizeof (gfloat) * len), 0);
    g_free (jobs[i].out);
  }

  g_free (in);
  g_free (ref);
}
END_TEST

static Suite *
stft_suite (void)
{
  Suite *s = suite_create ("stft");
  TCase *tc;

  tc = tcase_create ("fft");
  tcase_add_test (tc, test_fft_impulse);
  tcase_add_test (tc, test_fft_round_trip_scale);
  suite_add_tcase (s, tc);

  tc = tcase_create ("lifecycle");
  tcase_add_test (tc, test_stft_lifecycle);
  tcase_add_test (tc, test_stft_reset_equals_new);
  suite_add_tcase (s, tc);

  tc = tcase_create ("reconstruction");
  tcase_add_loop_test (tc, test_stft_reconstruction, 0, 4);
  suite_add_tcase (s, tc);

  tc = tcase_create ("history");
  tcase_add_loop_test (tc, test_stft_history_continuation, 0, 2);
  suite_add_tcase (s, tc);

  tc = tcase_create ("threads");
  tcase_add_test (tc, test_stft_threads);
  suite_add_tcase (s, tc);

  return s;
}

RNN_CHECK_MAIN (stft_suite);
