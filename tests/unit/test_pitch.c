/* rnndenoise — unit tests for dsp/dsp_pitch (period search, comb filter)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_main.h"
#include <glib.h>

#include "dsp/dsp_features.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_pitch.h"
#include "dsp/dsp_stft.h"

#define N_FRAMES 40

static void
make_config (DspFrameConfig *cfg, guint rate)
{
  GError *error = NULL;

  ck_assert (dsp_frame_config_init_default (cfg, rate, &error));
  ck_assert_ptr_null (error);
}

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

    make_config (&cfg, rates[r]);
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

  make_config (&cfg, 48000);
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

  make_config (&cfg, 48000);
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

/* SNR (dB) of @spectrum against the clean @speech over the bins below
 * @max_hz, after scaling @speech to fit it best (the filter changes
 * levels). */
static gdouble
snr_db (const gfloat *spectrum, const gfloat *speech, guint n_bins, guint rate,
    guint window, gdouble max_hz)
{
  gdouble ys = 0.0, ss = 0.0, err = 0.0, alpha;
  guint k, n = MIN (n_bins, (guint) (max_hz * window / rate));

  for (k = 0; k < 2 * n; k++) {
    ys += (gdouble) spectrum[k] * speech[k];
    ss += (gdouble) speech[k] * speech[k];
  }
  alpha = ys / ss;
  for (k = 0; k < 2 * n; k++) {
    gdouble e = spectrum[k] - alpha * speech[k];

    err += e * e;
  }
  return 10 * log10 (alpha * alpha * ss / err);
}

/* The comb filter: with gains of 1 it changes nothing; with strength 0
 * neither; with low gains on a noisy voiced frame it keeps each band's
 * energy (within the interpolation across band edges) and brings the frame
 * closer to the clean voice. */
START_TEST (test_pitch_filter)
{
  DspFrameConfig cfg;
  DspPitch *pitch;
  DspStft *stft, *clean_stft;
  DspFeatures *features;
  gfloat *x, *clean, *spectrum, *speech, *pitch_spectrum, *filtered, *scratch;
  gfloat gains[DSP_MAX_BANDS], before[DSP_MAX_BANDS], after[DSP_MAX_BANDS];
  gdouble snr0, snr1;
  guint len, n_bins, t, b;

  make_config (&cfg, 48000);
  n_bins = dsp_frame_config_get_n_bins (&cfg);
  len = cfg.hop * N_FRAMES;
  x = g_new (gfloat, len);
  clean = g_new (gfloat, len);
  spectrum = g_new (gfloat, 2 * n_bins);
  speech = g_new (gfloat, 2 * n_bins);
  pitch_spectrum = g_new (gfloat, 2 * n_bins);
  filtered = g_new (gfloat, 2 * n_bins);
  scratch = g_new (gfloat, dsp_pitch_filter_scratch_size (&cfg));
  make_voiced (48000, 150.0, 12, 0.15, x, len);
  make_voiced (48000, 150.0, 12, 0.0, clean, len);

  pitch = dsp_pitch_new (&cfg);
  stft = dsp_stft_new (&cfg);
  clean_stft = dsp_stft_new (&cfg);
  features = dsp_features_new (&cfg);
  for (t = 0; t < N_FRAMES; t++) {
    dsp_stft_analyze (stft, x + (gsize) t * cfg.hop, spectrum);
    dsp_stft_analyze (clean_stft, clean + (gsize) t * cfg.hop, speech);
    dsp_pitch_analyze (pitch, x + (gsize) t * cfg.hop, pitch_spectrum);
  }
  ck_assert_int_le (abs ((gint) dsp_pitch_get_period (pitch) - 320), 1);

  for (b = 0; b < cfg.n_bands; b++)
    gains[b] = 1.0f;
  memcpy (filtered, spectrum, sizeof (gfloat) * 2 * n_bins);
  dsp_pitch_filter (features, gains, pitch_spectrum, 1.0f, filtered, scratch);
  for (t = 0; t < 2 * n_bins; t++)
    ck_assert_float_eq_tol (filtered[t], spectrum[t], 1e-6f);

  for (b = 0; b < cfg.n_bands; b++)
    gains[b] = 0.3f;
  memcpy (filtered, spectrum, sizeof (gfloat) * 2 * n_bins);
  dsp_pitch_filter (features, gains, pitch_spectrum, 0.0f, filtered, scratch);
  for (t = 0; t < 2 * n_bins; t++)
    ck_assert_float_eq_tol (filtered[t], spectrum[t], 1e-6f);

  dsp_pitch_filter (features, gains, pitch_spectrum, 1.0f, filtered, scratch);
  dsp_features_band_energies (features, spectrum, before);
  dsp_features_band_energies (features, filtered, after);
  for (b = 0; b < cfg.n_bands; b++)
    ck_assert_float_lt (fabsf (10 * log10f (after[b] / before[b])), 1.0f);
  /* Up to the 12th harmonic, where the bands repeat with the period. */
  snr0 = snr_db (spectrum, speech, n_bins, 48000, cfg.window, 1800.0);
  snr1 = snr_db (filtered, speech, n_bins, 48000, cfg.window, 1800.0);
  ck_assert_msg (snr1 > snr0 + 1.0, "SNR %.2f dB before, %.2f dB after", snr0,
      snr1);

  dsp_pitch_free (pitch);
  dsp_stft_free (stft);
  dsp_stft_free (clean_stft);
  dsp_features_free (features);
  g_free (x);
  g_free (clean);
  g_free (spectrum);
  g_free (speech);
  g_free (pitch_spectrum);
  g_free (filtered);
  g_free (scratch);
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
  suite_add_tcase (s, tc);

  tc = tcase_create ("filter");
  tcase_add_test (tc, test_pitch_filter);
  suite_add_tcase (s, tc);

  return s;
}

RNN_CHECK_MAIN (pitch_suite);
