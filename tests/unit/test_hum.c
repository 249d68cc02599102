/* rnndenoise — unit tests for dsp/dsp_hum
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <check.h>

#include "check_main.h"
#include "model_helper.h"
#include <glib.h>

#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_hum.h"
#include "dsp/dsp_stft.h"

#define SECONDS 12

static void
init_config (DspFrameConfig *cfg, guint rate)
{
  ck_assert (dsp_frame_config_init_default (cfg, rate, NULL));
}

/* A hum: @n_harmonics harmonics of @f0 with falling, uneven amplitudes
 * and fixed phases, @rms overall about. */
static void
add_hum (gfloat *x, gsize n, guint rate, gdouble f0, guint n_harmonics,
    gdouble amplitude)
{
  gsize i;
  guint k;

  for (k = 1; k <= n_harmonics; k++) {
    gdouble a = amplitude / k * (0.5 + 0.5 * (k % 3 == 1));
    gdouble phase = 0.7 * k * k;

    for (i = 0; i < n; i++)
      x[i] += (gfloat) (a * sin (2.0 * G_PI * k * f0 * i / rate + phase));
  }
}

/* Something like a voice: harmonics of a pitch that wanders between 90
 * and 250 Hz, in syllables of 100-300 ms with pauses of 20-150 ms between
 * them, with a little noise. */
static void
add_voice (gfloat *x, gsize n, guint rate, gdouble amplitude)
{
  GRand *rand = g_rand_new_with_seed (7);
  gdouble phase = 0.0, pitch = 150.0, slope = 0.0;
  gsize i, start = 0, end = 0, next = 0;

  for (i = 0; i < n; i++) {
    gdouble v = 0.0, envelope = 0.0;
    guint k;

    if (i >= next) {
      start = i;
      end = i + (gsize) (g_rand_double_range (rand, 0.1, 0.3) * rate);
      next = end + (gsize) (g_rand_double_range (rand, 0.02, 0.15) * rate);
      slope = g_rand_double_range (rand, -300.0, 300.0);
    }
    if (i < end)
      envelope = sin (G_PI * (i - start) / (end - start));
    pitch = CLAMP (pitch + slope / rate, 90.0, 250.0);
    phase += 2.0 * G_PI * pitch / rate;
    for (k = 1; k * pitch < 4000.0; k++)
      v += sin (k * phase) / k;
    x[i] += (gfloat) (amplitude
        * (envelope * v + 0.01 * g_rand_double_range (rand, -1.0, 1.0)));
  }
  g_rand_free (rand);
}

/* Runs @in through the STFT with the canceller in between and writes
 * the synthesis, advanced by the STFT's delay, to @out (the last delay
 * samples are left 0). */
static void
run_through (DspHum *hum, const DspFrameConfig *cfg, const gfloat *in,
    gfloat *out, gsize n, gboolean remove)
{
  DspStft *stft = dsp_stft_new (cfg);
  guint delay = dsp_stft_get_delay (stft);
  gfloat *spectrum = g_new0 (gfloat, (cfg->window / 2 + 1) * 2);
  gfloat *frame = g_new0 (gfloat, cfg->hop);
  gsize t;

  memset (out, 0, n * sizeof (gfloat));
  for (t = 0; t + cfg->hop <= n; t += cfg->hop) {
    dsp_stft_analyze (stft, in + t, spectrum);
    dsp_hum_process (hum, spectrum, remove);
    dsp_stft_synthesize (stft, spectrum, frame);
    if (t >= delay)
      memcpy (out + t - delay, frame, cfg->hop * sizeof (gfloat));
  }
  g_free (frame);
  g_free (spectrum);
  dsp_stft_free (stft);
}

/* A steady hum of 50 or 60 Hz, on the nominal frequency or off it by up
 * to 0.5 %, and a rectifier's 100 Hz, is taken down by more than 30 dB
 * after a few seconds at both rates, and the tracked fundamental finds
 * the hum's. */
START_TEST (test_removes_mains_hum)
{
  static const gdouble hums[] = { 50.0, 50.2, 49.75, 60.0, 60.3, 59.7, 100.0 };
  static const guint rates[] = { 48000, 16000 };
  guint r, h;

  for (r = 0; r < G_N_ELEMENTS (rates); r++) {
    DspFrameConfig cfg;
    gsize n = (gsize) SECONDS * rates[r];
    gfloat *in = g_new0 (gfloat, n), *out = g_new0 (gfloat, n);

    init_config (&cfg, rates[r]);
    for (h = 0; h < G_N_ELEMENTS (hums); h++) {
      g_autoptr (DspHum) hum = NULL;
      gdouble f0 = hums[h] == 100.0 ? 50.0 : hums[h];
      gdouble db;

      /* At 16 kHz the hums off their nominal frequency and the rectifier's
       * are enough (the test runs under valgrind too). */
      if (rates[r] == 16000
          && (hums[h] == 50.0 || hums[h] == 60.0 || hums[h] == 50.2
              || hums[h] == 59.7))
        continue;
      hum = dsp_hum_new (&cfg);
      memset (in, 0, n * sizeof (gfloat));
      add_hum (in, n, rates[r], hums[h], hums[h] == 100.0 ? 6 : 12, 0.1);
      run_through (hum, &cfg, in, out, n, TRUE);
      db = model_helper_difference_db (out, NULL, in, n - 2 * rates[r],
          n - rates[r]);
      ck_assert_msg (db < -30.0, "%g Hz at %u Hz: %.1f dB left", hums[h],
          rates[r], db);
      ck_assert_msg (fabs (dsp_hum_get_fundamental (hum) - f0) < 0.02,
          "%g Hz at %u Hz: followed %g Hz", hums[h], rates[r],
          dsp_hum_get_fundamental (hum));
    }
    g_free (in);
    g_free (out);
  }
}
END_TEST

/* Without hum, a voice comes through as the STFT alone gives it back,
 * within -30 dB. */
START_TEST (test_leaves_a_voice_alone)
{
  DspFrameConfig cfg;
  gsize n = (gsize) SECONDS * 48000;
  gfloat *in = g_new0 (gfloat, n), *out = g_new0 (gfloat, n);
  gfloat *plain = g_new0 (gfloat, n);
  g_autoptr (DspHum) hum = NULL;
  g_autoptr (DspHum) follower = NULL;
  gdouble db;

  init_config (&cfg, 48000);
  hum = dsp_hum_new (&cfg);
  follower = dsp_hum_new (&cfg);
  add_voice (in, n, 48000, 0.05);
  run_through (hum, &cfg, in, out, n, TRUE);
  run_through (follower, &cfg, in, plain, n, FALSE);
  db = model_helper_difference_db (out, plain, plain, 0, n - 48000);
  ck_assert_msg (db < -30.0, "the voice changed by %.1f dB", db);
  g_free (in);
  g_free (out);
  g_free (plain);
}
END_TEST

/* A voice under a 50.1 Hz hum about 6 dB louder than it: from the sixth
 * second on, what comes out differs from the voice alone by at least 6 dB
 * less than the mixture does, at 48 and 16 kHz. */
START_TEST (test_keeps_the_voice_under_the_hum)
{
  static const guint rates[] = { 48000, 16000 };
  guint r;

  for (r = 0; r < G_N_ELEMENTS (rates); r++) {
    DspFrameConfig cfg;
    gsize n = (gsize) SECONDS * rates[r];
    gfloat *voice = g_new0 (gfloat, n), *mix = g_new0 (gfloat, n);
    gfloat *out = g_new0 (gfloat, n), *voice_out = g_new0 (gfloat, n);
    gfloat *mix_out = g_new0 (gfloat, n);
    g_autoptr (DspHum) hum = NULL;
    g_autoptr (DspHum) plain = NULL;
    g_autoptr (DspHum) follower = NULL;
    gdouble db, before;

    init_config (&cfg, rates[r]);
    hum = dsp_hum_new (&cfg);
    plain = dsp_hum_new (&cfg);
    follower = dsp_hum_new (&cfg);
    add_voice (voice, n, rates[r], 0.05);
    memcpy (mix, voice, n * sizeof (gfloat));
    add_hum (mix, n, rates[r], 50.1, 12, 0.1);
    run_through (hum, &cfg, mix, out, n, TRUE);
    run_through (follower, &cfg, mix, mix_out, n, FALSE);
    run_through (plain, &cfg, voice, voice_out, n, FALSE);
    db = model_helper_difference_db (out, voice_out, voice_out, 6 * rates[r],
        n - rates[r]);
    before = model_helper_difference_db (mix_out, voice_out, voice_out,
        6 * rates[r], n - rates[r]);
    ck_assert_msg (db < before - 6.0,
        "at %u Hz the output is %.1f dB off the voice (the mixture %.1f)",
        rates[r], db, before);
    g_free (voice);
    g_free (mix);
    g_free (out);
    g_free (mix_out);
    g_free (voice_out);
  }
}
END_TEST

/* Fills @spectrum with frame @t of a hum at 50.3 Hz plus a little noise,
 * as an analysis would see it (any frames do for the state's sake). */
static void
hum_frame (DspStft *stft, const DspFrameConfig *cfg, guint t, gfloat *spectrum)
{
  gfloat *in = g_new0 (gfloat, cfg->hop);
  guint i;

  for (i = 0; i < cfg->hop; i++) {
    gdouble s = (gdouble) (t * cfg->hop + i) / cfg->sample_rate;

    in[i] = (gfloat) (0.1 * sin (2.0 * G_PI * 50.3 * s)
        + 0.05 * sin (2.0 * G_PI * 150.9 * s + 1.0)
        + 0.001 * sin (12345.0 * s * s));
  }
  dsp_stft_analyze (stft, in, spectrum);
  g_free (in);
}

/* A canceller saved mid-stream and loaded into a fresh one continues
 * bit for bit, also across refits of its fit (the hum is off the nominal
 * frequency, so the fundamental moves and the fit is rebuilt after the
 * load); with removal off the spectrum is untouched and the state moves
 * exactly as with it on. */
START_TEST (test_save_load_continues_exactly)
{
  DspFrameConfig cfg;
  g_autoptr (DspHum) a = NULL;
  g_autoptr (DspHum) b = NULL;
  g_autoptr (DspHum) off = NULL;
  DspStft *stft;
  gsize size, bins2;
  gfloat *state_a, *state_b, *spectrum, *sa, *sb, *soff;
  guint t;

  init_config (&cfg, 48000);
  a = dsp_hum_new (&cfg);
  off = dsp_hum_new (&cfg);
  stft = dsp_stft_new (&cfg);
  size = dsp_hum_history_size (a);
  bins2 = (cfg.window / 2 + 1) * 2;
  state_a = g_new0 (gfloat, size);
  state_b = g_new0 (gfloat, size);
  spectrum = g_new0 (gfloat, bins2);
  sa = g_new0 (gfloat, bins2);
  sb = g_new0 (gfloat, bins2);
  soff = g_new0 (gfloat, bins2);

  for (t = 0; t < 700; t++) {
    hum_frame (stft, &cfg, t, spectrum);
    memcpy (sa, spectrum, bins2 * sizeof (gfloat));
    memcpy (soff, spectrum, bins2 * sizeof (gfloat));
    dsp_hum_process (a, sa, TRUE);
    dsp_hum_process (off, soff, FALSE);
    ck_assert (memcmp (soff, spectrum, bins2 * sizeof (gfloat)) == 0);
    if (b != NULL) {
      memcpy (sb, spectrum, bins2 * sizeof (gfloat));
      dsp_hum_process (b, sb, TRUE);
      ck_assert_msg (memcmp (sa, sb, bins2 * sizeof (gfloat)) == 0,
          "frame %u differs after the load", t);
    }
    if (t == 150) {
      b = dsp_hum_new (&cfg);
      dsp_hum_save (a, state_a);
      dsp_hum_load (b, state_a);
    }
  }
  dsp_hum_save (a, state_a);
  dsp_hum_save (b, state_b);
  ck_assert (memcmp (state_a, state_b, size * sizeof (gfloat)) == 0);
  dsp_hum_save (off, state_b);
  ck_assert (memcmp (state_a, state_b, size * sizeof (gfloat)) == 0);
  ck_assert (fabs (dsp_hum_get_fundamental (a) - 50.3) < 0.02);

  g_free (state_a);
  g_free (state_b);
  g_free (spectrum);
  g_free (sa);
  g_free (sb);
  g_free (soff);
  dsp_stft_free (stft);
}
END_TEST

/* A damaged state is held to what processing can produce: a fundamental
 * out of range or NaN becomes the nominal one, a phase outside 0..2 pi
 * becomes 0, a negative magnitude 0; saved again it passes unchanged, and
 * the output stays finite. */
START_TEST (test_load_holds_a_damaged_state)
{
  DspFrameConfig cfg;
  g_autoptr (DspHum) hum = NULL;
  g_autoptr (DspHum) fresh = NULL;
  DspStft *stft;
  gsize size, bins2, i;
  gfloat *state, *again, *spectrum;
  guint t;

  init_config (&cfg, 16000);
  hum = dsp_hum_new (&cfg);
  fresh = dsp_hum_new (&cfg);
  stft = dsp_stft_new (&cfg);
  size = dsp_hum_history_size (hum);
  bins2 = (cfg.window / 2 + 1) * 2;
  state = g_new0 (gfloat, size);
  again = g_new0 (gfloat, size);
  spectrum = g_new0 (gfloat, bins2);

  dsp_hum_save (fresh, state);
  ck_assert_float_eq (state[0], 50.0f);
  ck_assert_float_eq (state[1], 50.0f);
  state[0] = NAN;
  state[1] = 70.0f;
  state[2] = 100.0f;
  for (i = 3; i < size; i++)
    state[i] = -1.0f;
  dsp_hum_load (hum, state);
  dsp_hum_save (hum, again);
  ck_assert_float_eq (again[0], 50.0f);
  ck_assert_float_eq (again[1], 50.0f);
  ck_assert_float_eq (again[2], 0.0f);
  /* The rest: means, drifts and last amplitudes kept, magnitudes 0, the
   * 60 Hz family's fundamentals 60 and its phase 0. */
  for (i = 3; i < size; i++)
    ck_assert (again[i] == -1.0f || again[i] == 0.0f || again[i] == 60.0f);
  memcpy (state, again, size * sizeof (gfloat));
  dsp_hum_load (hum, state);
  dsp_hum_save (hum, again);
  ck_assert (memcmp (state, again, size * sizeof (gfloat)) == 0);
  for (t = 0; t < 50; t++) {
    hum_frame (stft, &cfg, t, spectrum);
    dsp_hum_process (hum, spectrum, TRUE);
    for (i = 0; i < bins2; i++)
      ck_assert (isfinite (spectrum[i]));
  }
  g_free (state);
  g_free (again);
  g_free (spectrum);
  dsp_stft_free (stft);
}
END_TEST

static Suite *
hum_suite (void)
{
  Suite *s = suite_create ("hum");
  TCase *tc = tcase_create ("canceller");

  tcase_add_test (tc, test_removes_mains_hum);
  tcase_add_test (tc, test_leaves_a_voice_alone);
  tcase_add_test (tc, test_keeps_the_voice_under_the_hum);
  tcase_add_test (tc, test_save_load_continues_exactly);
  tcase_add_test (tc, test_load_holds_a_damaged_state);
  suite_add_tcase (s, tc);
  return s;
}

RNN_CHECK_MAIN (hum_suite);
