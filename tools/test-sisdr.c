/* rnndenoise — tools: tests of the SI-SDR measure and the WAV reader
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sisdr.h"
#include "wavfile.h"

#define N 48000

/* A sine of @cycles whole periods over N samples: zero mean, and
 * orthogonal to a sine of any other whole number of periods. */
static gdouble *
sine (gdouble amplitude, guint cycles, gdouble offset)
{
  gdouble *x = g_new (gdouble, N);
  gsize i;

  for (i = 0; i < N; i++)
    x[i] = offset + amplitude * sin (2.0 * G_PI * cycles * i / N);
  return x;
}

/* Deterministic broadband noise in -0.5..0.5. */
static gdouble *
noise (gsize n, guint32 seed)
{
  gdouble *x = g_new (gdouble, n);
  gsize i;

  for (i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (seed >> 8) / 16777216.0 - 0.5;
  }
  return x;
}

static void
test_exact_copy (void)
{
  gdouble *s = sine (0.5, 5, 0.0);
  gdouble *e = sine (-0.25, 5, 0.1); /* scaled, inverted, DC added */
  gsize n;

  /* Rounding leaves a distortion of about 1e-30 of the target at most. */
  g_assert_cmpfloat (sisdr_compute (s, N, e, N, 0, &n), >, 150.0);
  g_assert_cmpuint (n, ==, N);
  g_free (s);
  g_free (e);
}

static void
test_known_ratio (void)
{
  static const gdouble scales[] = { 0.5, 2.0, -3.0 };
  gdouble *s = sine (0.5, 5, 0.0);
  gdouble *d = sine (0.05, 13, 0.0);
  gdouble *e = g_new (gdouble, N);
  gsize i, k;

  /* e = a s + d with d orthogonal to s: SI-SDR = ||a s||² / ||d||², here
   * (a 0.5)² / 0.05² whatever a is: 10 log10 (100) = 20 dB. An offset in
   * the estimate changes nothing (both are made zero-mean). */
  for (k = 0; k < G_N_ELEMENTS (scales); k++) {
    for (i = 0; i < N; i++)
      e[i] = scales[k] * s[i] + scales[k] * d[i] + 0.2;
    g_assert_cmpfloat_with_epsilon (sisdr_compute (s, N, e, N, 0, NULL), 20.0,
        1e-6);
  }
  /* Roles swapped: d as the reference inside s + d scores
   * 10 log10 (0.05² / 0.5²) = -20 dB. */
  for (i = 0; i < N; i++)
    e[i] = s[i] + d[i];
  g_assert_cmpfloat_with_epsilon (sisdr_compute (d, N, e, N, 0, NULL), -20.0,
      1e-6);
  g_free (s);
  g_free (d);
  g_free (e);
}

static void
test_silent_reference_is_nan (void)
{
  gdouble *s = sine (0.0, 5, 0.3);
  gdouble *e = sine (0.5, 5, 0.0);

  g_assert_true (isnan (sisdr_compute (s, N, e, N, 0, NULL)));
  g_assert_true (isnan (sisdr_compute (e, N, e, N, N, NULL)));
  g_free (s);
  g_free (e);
}

static void
test_delay_search (void)
{
  static const gint64 delays[] = { 0, 37, -120, 2400, -2400 };
  const gsize n = 24000;
  gdouble *s = noise (n, 1), *d = noise (n + 5000, 2);
  gdouble *e = g_new (gdouble, n + 5000);
  const gdouble *refs[1], *ests[1];
  gsize i, k, compared;
  gint64 found;

  for (k = 0; k < G_N_ELEMENTS (delays); k++) {
    gint64 delay = delays[k];

    /* e[i + delay] = s[i] + a little noise; e is longer than s. */
    for (i = 0; i < n + 5000; i++) {
      gint64 j = (gint64) i - delay;

      e[i] = (j >= 0 && j < (gint64) n ? s[j] : 0.0) + 0.01 * d[i];
    }
    refs[0] = s;
    ests[0] = e;
    found = sisdr_find_delay (refs, n, ests, n + 5000, 1, 2400);
    g_assert_cmpint (found, ==, delay);
    g_assert_cmpfloat (sisdr_compute (s, n, e, n + 5000, found, &compared), >,
        30.0);
    g_assert_cmpuint (compared, ==,
        MIN ((gint64) n, (gint64) n + 5000 - delay) - MAX (0, -delay));
    /* Compared without the delay, the same pair scores far lower. */
    if (delay != 0)
      g_assert_cmpfloat (sisdr_compute (s, n, e, n + 5000, 0, NULL), <, 0.0);
  }
  g_free (s);
  g_free (d);
  g_free (e);
}

static void
test_wav_round_trip (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WavFile) wav = wav_file_new (48000, 2, 1000);
  g_autoptr (WavFile) back = NULL;
  gchar *path;
  guint clipped;
  gsize i;
  gint fd;

  for (i = 0; i < 2000; i++)
    wav->samples[i] = i == 7 ? 1.5 : 0.9 * sin (i * 0.01);
  fd = g_file_open_tmp ("sisdr-XXXXXX.wav", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (wav_file_write_s16 (wav, path, &clipped, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (clipped, ==, 1);
  back = wav_file_read (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->rate, ==, 48000);
  g_assert_cmpuint (back->channels, ==, 2);
  g_assert_cmpuint (back->n_frames, ==, 1000);
  for (i = 0; i < 2000; i++)
    if (i != 7)
      g_assert_cmpfloat_with_epsilon (back->samples[i], wav->samples[i],
          0.5 / 32768.0 + 1e-12);
  g_assert_cmpfloat (back->samples[7], ==, 32767.0 / 32768.0);
  g_unlink (path);
  g_free (path);
}

static void
test_wav_rejects_garbage (void)
{
  g_autoptr (GError) error = NULL;
  gchar *path;
  gint fd;

  fd = g_file_open_tmp ("sisdr-XXXXXX.wav", &path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (fd, "RIFF\0\0\0\0WAVEdata", 16), ==, 16);
  close (fd);
  g_assert_null (wav_file_read (path, &error));
  g_assert_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_FORMAT);
  g_unlink (path);
  g_free (path);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sisdr/exact-copy", test_exact_copy);
  g_test_add_func ("/sisdr/known-ratio", test_known_ratio);
  g_test_add_func ("/sisdr/silent-reference", test_silent_reference_is_nan);
  g_test_add_func ("/sisdr/delay-search", test_delay_search);
  g_test_add_func ("/wav/round-trip", test_wav_round_trip);
  g_test_add_func ("/wav/garbage", test_wav_rejects_garbage);
  return g_test_run ();
}
