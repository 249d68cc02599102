/* rnndenoise — unit tests for dsp/dsp_pitch (period search, pitch features)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_main.h"
#include "model_helper.h"
#include <glib.h>

#include "dsp/dsp_dense.h"
#include "dsp/dsp_features.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_pitch.h"
#include "dsp/dsp_stft.h"

#define N_FRAMES 40

/* A voice-like harmonic tone: @n_harmonics harmonics of @f0 Hz with falling
 * amplitudes, plus uniform noise of amplitude @noise (fixed seed). */
static void
make_voiced (guint rate, gdouble f0, guint n_harmonics, gdouble noise,
    gfloat *x, guint len)
{
  GRand *rand = g_rand_new_with_seed (99);
  guint n, h;

  for (n = 0; n < len; n++) {
    gdouble t = (gdouble) n / rate, v = 0.0;

    for (h = 1; h <= n_harmonics; h++)
      v += 0.3 / h * sin (2 * G_PI * h * f0 * t + 0.7 * h);
    x[n] = (gfloat) (v + noise * g_rand_double_range (rand, -1.0, 1.0));
  }
  g_rand_free (rand);
}

/* Runs @n_frames frames of @x through @pitch, the spectrum of the last in
 * @spectrum. */
static void
run_frames (DspPitch *pitch, guint hop, const gfloat *x, guint n_frames,
    gfloat *spectrum)
{
  guint t;

  for (t = 0; t < n_frames; t++)
    dsp_pitch_analyze (pitch, x + (gsize) t * hop, spectrum);
}

/* The period of a harmonic tone is found at every supported rate, also when
 * its fundamental is weak (the octave check) and under moderate noise. */
START_TEST (test_pitch_finds_period)
{
  static const guint rates[] = { 48000, 16000, 44100 };
  static const gdouble f0s[] = { 100.0, 180.0, 240.0, 400.0 };
  guint r, f;

  for (r = 0; r < G_N_ELEMENTS (rates); r++) {
    DspFrameConfig cfg;
    DspPitch *pitch;
    gfloat *x, *spectrum;
    guint len;

    model_helper_default_config (&cfg, rates[r]);
    len = cfg.hop * N_FRAMES;
    x = g_new (gfloat, len);
    spectrum = g_new (gfloat, 2 * dsp_frame_config_get_n_bins (&cfg));
    for (f = 0; f < G_N_ELEMENTS (f0s); f++) {
      gdouble expected = rates[r] / f0s[f];

      pitch = dsp_pitch_new (&cfg);
      make_voiced (rates[r], f0s[f], 8, 0.05, x, len);
      run_frames (pitch, cfg.hop, x, N_FRAMES, spectrum);
      ck_assert_msg (fabs (dsp_pitch_get_period (pitch) - expected) <= 1.0,
          "%u Hz, f0 %.0f: period %u, expected %.1f", rates[r], f0s[f],
          dsp_pitch_get_period (pitch), expected);
      ck_assert_float_gt (dsp_pitch_get_correlation (pitch), 0.9f);
      dsp_pitch_free (pitch);
    }
    g_free (x);
    g_free (spectrum);
  }
}
END_TEST

/* Noise does not repeat: low correlation. Silence: 0, nothing non-finite. */
START_TEST (test_pitch_noise_and_silence)
{
  DspFrameConfig cfg;
  DspPitch *pitch;
  gfloat *x, *spectrum;
  guint len, k, n_bins;

  model_helper_default_config (&cfg, 48000);
  n_bins = dsp_frame_config_get_n_bins (&cfg);
  len = cfg.hop * N_FRAMES;
  x = g_new0 (gfloat, len);
  spectrum = g_new (gfloat, 2 * n_bins);

  pitch = dsp_pitch_new (&cfg);
  run_frames (pitch, cfg.hop, x, N_FRAMES, spectrum);
  ck_assert_float_eq (dsp_pitch_get_correlation (pitch), 0.0f);
  for (k = 0; k < 2 * n_bins; k++)
    ck_assert_float_eq (spectrum[k], 0.0f);

  make_voiced (48000, 100.0, 0, 0.5, x, len);
  run_frames (pitch, cfg.hop, x, N_FRAMES, spectrum);
  ck_assert_float_lt (dsp_pitch_get_correlation (pitch), 0.3f);
  dsp_pitch_free (pitch);
  g_free (x);
  g_free (spectrum);
}
END_TEST

/* Saving the history after k frames and loading it into a fresh analysis
 * continues bit-exactly; reset equals new. */
START_TEST (test_pitch_history_continuation)
{
  DspFrameConfig cfg;
  DspPitch *whole, *first, *second;
  gfloat *x, *a, *b, *saved;
  guint len, n_bins, split = 17;

  model_helper_default_config (&cfg, 48000);
  n_bins = dsp_frame_config_get_n_bins (&cfg);
  len = cfg.hop * N_FRAMES;
  x = g_new (gfloat, len);
  a = g_new (gfloat, 2 * n_bins);
  b = g_new (gfloat, 2 * n_bins);
  make_voiced (48000, 137.0, 6, 0.2, x, len);

  whole = dsp_pitch_new (&cfg);
  first = dsp_pitch_new (&cfg);
  second = dsp_pitch_new (&cfg);
  saved = g_new (gfloat, dsp_pitch_history_size (whole));
  ck_assert_uint_ge (dsp_pitch_history_size (whole),
      cfg.window + 48000 / DSP_PITCH_MIN_HZ);

  run_frames (whole, cfg.hop, x, N_FRAMES, a);
  run_frames (first, cfg.hop, x, split, b);
  dsp_pitch_save_history (first, saved);
  dsp_pitch_load_history (second, saved);
  run_frames (second, cfg.hop, x + (gsize) split * cfg.hop, N_FRAMES - split,
      b);
  ck_assert_mem_eq (a, b, sizeof (gfloat) * 2 * n_bins);
  ck_assert_uint_eq (dsp_pitch_get_period (whole),
      dsp_pitch_get_period (second));

  dsp_pitch_reset (first);
  dsp_pitch_save_history (first, saved);
  {
    DspPitch *fresh = dsp_pitch_new (&cfg);
    gfloat *fresh_history = g_new (gfloat, dsp_pitch_history_size (whole));

    dsp_pitch_save_history (fresh, fresh_history);
    ck_assert_mem_eq (saved, fresh_history,
        sizeof (gfloat) * dsp_pitch_history_size (whole));
    g_free (fresh_history);
    dsp_pitch_free (fresh);
  }

  dsp_pitch_free (whole);
  dsp_pitch_free (first);
  dsp_pitch_free (second);
  g_free (saved);
  g_free (x);
  g_free (a);
  g_free (b);
}
END_TEST

/* Each frame, four analyses of the same input give the same bits: one run
 * straight through (the coarse signal updated by each hop's new samples);
 * one that reloads its saved history before every frame (so decimates the
 * whole history each time); one whose every third frame has no search
 * (after which the coarse signal is rebuilt); and one with the portable
 * dot product instead of the AVX2 one. The signal turns from a voice to
 * noise to silence, so the period changes on the way. */
START_TEST (test_pitch_incremental_and_kernels_identical)
{
  DspFrameConfig cfg;
  DspPitch *straight, *reloaded, *skipping, *portable;
  gfloat *x, *history, *s0, *s1, *s2, *s3;
  guint rate = _i ? 16000 : 48000, len, n_bins, t, n_frames = 3 * N_FRAMES;

  model_helper_default_config (&cfg, rate);
  n_bins = dsp_frame_config_get_n_bins (&cfg);
  len = cfg.hop * n_frames;
  x = g_new0 (gfloat, len);
  make_voiced (rate, 183.0, 8, 0.05, x, cfg.hop * N_FRAMES);
  make_voiced (rate, 0.0, 0, 0.3, x + (gsize) cfg.hop * N_FRAMES,
      cfg.hop * N_FRAMES);
  s0 = g_new (gfloat, 2 * n_bins);
  s1 = g_new (gfloat, 2 * n_bins);
  s2 = g_new (gfloat, 2 * n_bins);
  s3 = g_new (gfloat, 2 * n_bins);
  straight = dsp_pitch_new (&cfg);
  reloaded = dsp_pitch_new (&cfg);
  skipping = dsp_pitch_new (&cfg);
  portable = dsp_pitch_new (&cfg);
  history = g_new (gfloat, dsp_pitch_history_size (straight));

  for (t = 0; t < n_frames; t++) {
    const gfloat *in = x + (gsize) t * cfg.hop;

    dsp_pitch_analyze (straight, in, s0);
    dsp_pitch_save_history (reloaded, history);
    dsp_pitch_load_history (reloaded, history);
    dsp_pitch_analyze (reloaded, in, s1);
    dsp_pitch_analyze (skipping, in, t % 3 == 2 ? NULL : s2);
    dsp_dense_set_kernel_limit (DSP_KERNELS_PORTABLE);
    dsp_pitch_analyze (portable, in, s3);
    dsp_dense_set_kernel_limit (DSP_KERNELS_VNNI);

    ck_assert_mem_eq (s0, s1, sizeof (gfloat) * 2 * n_bins);
    ck_assert_mem_eq (s0, s3, sizeof (gfloat) * 2 * n_bins);
    ck_assert_uint_eq (dsp_pitch_get_period (straight),
        dsp_pitch_get_period (reloaded));
    ck_assert_uint_eq (dsp_pitch_get_period (straight),
        dsp_pitch_get_period (portable));
    ck_assert (dsp_pitch_get_correlation (straight)
        == dsp_pitch_get_correlation (portable));
    if (t % 3 != 2) {
      ck_assert_mem_eq (s0, s2, sizeof (gfloat) * 2 * n_bins);
      ck_assert (dsp_pitch_get_correlation (straight)
          == dsp_pitch_get_correlation (skipping));
    }
  }

  dsp_pitch_free (straight);
  dsp_pitch_free (reloaded);
  dsp_pitch_free (skipping);
  dsp_pitch_free (portable);
  g_free (history);
  g_free (x);
  g_free (s0);
  g_free (s1);
  g_free (s2);
  g_free (s3);
}
END_TEST

/* Runs @x through a 48 kHz layout-3 analysis and returns the pitch
 * features (n_bands + DSP_FEATURE_N_PITCH values in @out) of its last frame;
 * @damage, if not NULL, is written into the pitch spectrum of that frame
 * first (bins 0 .. 9), as a damaged history could make it. */
static void
last_frame_features (const gfloat *x, guint n_frames, const gfloat *damage,
    gfloat *out, guint *n_bands)
{
  DspFrameConfig cfg;
  DspPitch *pitch;
  DspStft *stft;
  DspFeatures *features;
  gfloat *spectrum, *pitch_spectrum, *row, energies[DSP_MAX_BANDS];
  guint t, k;

  ck_assert (dsp_frame_config_init_layout (&cfg, 48000,
      DSP_FEATURE_LAYOUT_PITCH_V3, NULL));
  spectrum = g_new (gfloat, 2 * dsp_frame_config_get_n_bins (&cfg));
  pitch_spectrum = g_new (gfloat, 2 * dsp_frame_config_get_n_bins (&cfg));
  row = g_new (gfloat, DSP_MAX_FEATURES);
  pitch = dsp_pitch_new (&cfg);
  stft = dsp_stft_new (&cfg);
  features = dsp_features_new (&cfg);
  ck_assert_uint_eq (dsp_features_get_n_features (features),
      3 * cfg.n_bands + 2 * DSP_FEATURE_N_DELTA + DSP_FEATURE_N_PITCH);
  for (t = 0; t < n_frames; t++) {
    dsp_stft_analyze (stft, x + (gsize) t * cfg.hop, spectrum);
    dsp_features_compute (features, spectrum, row, energies);
    dsp_pitch_analyze (pitch, x + (gsize) t * cfg.hop, pitch_spectrum);
  }
  for (k = 0; damage != NULL && k < 10; k++)
    pitch_spectrum[k] = damage[k];
  dsp_pitch_features (pitch, features, energies, spectrum, pitch_spectrum, out);
  *n_bands = cfg.n_bands;

  dsp_pitch_free (pitch);
  dsp_stft_free (stft);
  dsp_features_free (features);
  g_free (spectrum);
  g_free (pitch_spectrum);
  g_free (row);
}

/* Layout 3's pitch part: a voiced frame repeats with its period in the
 * bands its harmonics fill, noise does not, silence gives zeros; the pitch
 * value is log2 (f0 / 100 Hz). */
START_TEST (test_pitch_features)
{
  guint len = 480 * N_FRAMES, n_bands, b, n_harmonic = 0;
  gfloat *x = g_new (gfloat, len);
  gfloat voiced[DSP_MAX_BANDS + DSP_FEATURE_N_PITCH];
  gfloat noise[DSP_MAX_BANDS + DSP_FEATURE_N_PITCH];
  gfloat silent[DSP_MAX_BANDS + DSP_FEATURE_N_PITCH];
  gdouble noise_mean = 0.0;

  make_voiced (48000, 150.0, 12, 0.01, x, len);
  last_frame_features (x, N_FRAMES, NULL, voiced, &n_bands);
  make_voiced (48000, 150.0, 0, 0.3, x, len);
  last_frame_features (x, N_FRAMES, NULL, noise, &n_bands);
  memset (x, 0, sizeof (gfloat) * len);
  last_frame_features (x, N_FRAMES, NULL, silent, &n_bands);

  /* Bands 3 .. 14 (150 Hz .. 1.8 kHz) hold the 12 harmonics. */
  for (b = 3; b < 15; b++) {
    ck_assert_msg (voiced[b] > 0.9f, "band %u: %f", b, voiced[b]);
    n_harmonic++;
  }
  ck_assert_uint_eq (n_harmonic, 12);
  for (b = 0; b < n_bands; b++) {
    noise_mean += noise[b] / n_bands;
    ck_assert_float_eq (silent[b], 0.0f);
    ck_assert (voiced[b] >= -1.0f && voiced[b] <= 1.0f);
  }
  ck_assert_msg (fabs (noise_mean) < 0.2, "noise: mean %f", noise_mean);
  ck_assert_float_gt (voiced[n_bands], 0.9f);
  ck_assert_float_lt (noise[n_bands], voiced[n_bands] - 0.3f);
  ck_assert_float_eq (silent[n_bands], 0.0f);
  ck_assert_float_eq_tol (voiced[n_bands + 1], log2f (1.5f), 0.01f);
  g_free (x);
}
END_TEST

/* NaN and infinity in the pitch spectrum (what a damaged history could
 * give) make finite features: 0 where the correlation is undefined. */
START_TEST (test_pitch_features_damaged)
{
  guint len = 480 * N_FRAMES, n_bands, b;
  gfloat *x = g_new (gfloat, len);
  gfloat out[DSP_MAX_BANDS + DSP_FEATURE_N_PITCH];
  gfloat nans[10], infs[10];

  for (b = 0; b < 10; b++) {
    nans[b] = NAN;
    infs[b] = (b % 2) ? INFINITY : -INFINITY;
  }
  make_voiced (48000, 150.0, 12, 0.01, x, len);
  last_frame_features (x, N_FRAMES, nans, out, &n_bands);
  for (b = 0; b < n_bands + DSP_FEATURE_N_PITCH; b++)
    ck_assert_msg (isfinite (out[b]), "value %u: %f", b, out[b]);
  ck_assert_float_eq (out[0], 0.0f);
  last_frame_features (x, N_FRAMES, infs, out, &n_bands);
  for (b = 0; b < n_bands + DSP_FEATURE_N_PITCH; b++)
    ck_assert_msg (isfinite (out[b]) && fabsf (out[b]) <= 3.0f, "value %u: %f",
        b, out[b]);
  g_free (x);
}
END_TEST

static Suite *
pitch_suite (void)
{
  Suite *s = suite_create ("pitch");
  TCase *tc;

  tc = tcase_create ("search");
  tcase_add_test (tc, test_pitch_finds_period);
  tcase_add_test (tc, test_pitch_noise_and_silence);
  suite_add_tcase (s, tc);

  tc = tcase_create ("history");
  tcase_add_test (tc, test_pitch_history_continuation);
  tcase_add_loop_test (tc, test_pitch_incremental_and_kernels_identical, 0, 2);
  suite_add_tcase (s, tc);

  tc = tcase_create ("features");
  tcase_add_test (tc, test_pitch_features);
  tcase_add_test (tc, test_pitch_features_damaged);
  suite_add_tcase (s, tc);

  return s;
}

RNN_CHECK_MAIN (pitch_suite);
