/* rnndenoise — tools: mix speech and noise at a given SNR
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: rnndenoise-mix [--snr DB] CLEAN.wav NOISE.wav NOISY.wav
 *
 * Writes CLEAN + g * NOISE as 16-bit PCM, with g chosen so that the
 * signal-to-noise ratio over the whole file (mean square of CLEAN over mean
 * square of g * NOISE) is DB (default 5). NOISE is repeated if it is
 * shorter than CLEAN and cut if longer; both files must have the same rate
 * and channel count. If the mixture would clip, the whole mixture is scaled
 * down (SI-SDR does not depend on the scale).
 */
#include "config.h"

#include <math.h>

#include <glib.h>

#include "wavfile.h"

static gdouble snr_db = 5.0;

static GOptionEntry entries[] = {
  { "snr", 's', 0, G_OPTION_ARG_DOUBLE, &snr_db,
      "Signal-to-noise ratio of the mixture in dB (default 5)", "DB" },
  G_OPTION_ENTRY_NULL,
};

static gdouble
mean_square (const gdouble *x, gsize n)
{
  gdouble e = 0.0;
  gsize i;

  for (i = 0; i < n; i++)
    e += x[i] * x[i];
  return n > 0 ? e / n : 0.0;
}

int
main (int argc, char *argv[])
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (WavFile) clean = NULL;
  g_autoptr (WavFile) noise = NULL;
  g_autoptr (WavFile) noisy = NULL;
  gdouble p_clean, p_noise, gain, peak = 0.0, scale = 1.0;
  gsize n, n_noise, i;

  context = g_option_context_new ("CLEAN.wav NOISE.wav NOISY.wav");
  g_option_context_set_summary (context,
      "Mixes CLEAN and NOISE at a given SNR into NOISY (16-bit PCM).");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    g_printerr ("rnndenoise-mix: %s\n", error->message);
    return 2;
  }
  if (argc != 4 || !isfinite (snr_db)) {
    g_printerr ("Usage: rnndenoise-mix [--snr DB] CLEAN.wav NOISE.wav "
                "NOISY.wav\n");
    return 2;
  }

  clean = wav_file_read (argv[1], &error);
  if (clean != NULL)
    noise = wav_file_read (argv[2], &error);
  if (clean == NULL || noise == NULL) {
    g_printerr ("rnndenoise-mix: %s\n", error->message);
    return 1;
  }
  if (clean->rate != noise->rate || clean->channels != noise->channels) {
    g_printerr ("rnndenoise-mix: the clean file is %u Hz, %u channel(s); "
                "the noise is %u Hz, %u channel(s)\n",
        clean->rate, clean->channels, noise->rate, noise->channels);
    return 1;
  }
  n = clean->n_frames * clean->channels;
  n_noise = noise->n_frames * noise->channels;
  p_clean = mean_square (clean->samples, n);
  p_noise = mean_square (noise->samples, n_noise);
  if (n == 0 || p_clean <= 0.0 || p_noise <= 0.0) {
    g_printerr ("rnndenoise-mix: the %s file is empty or silent\n",
        n == 0 || p_clean <= 0.0 ? "clean" : "noise");
    return 1;
  }

  /* Mean square of the repeated noise over the clean file's length. */
  noisy = wav_file_new (clean->rate, clean->channels, clean->n_frames);
  for (i = 0; i < n; i++)
    noisy->samples[i] = noise->samples[i % n_noise];
  p_noise = mean_square (noisy->samples, n);
  if (p_noise <= 0.0) {
    g_printerr ("rnndenoise-mix: the noise is silent over the clean "
                "file's length\n");
    return 1;
  }
  gain = sqrt (p_clean / (p_noise * pow (10.0, snr_db / 10.0)));
  for (i = 0; i < n; i++) {
    noisy->samples[i] = clean->samples[i] + gain * noisy->samples[i];
    peak = MAX (peak, fabs (noisy->samples[i]));
  }
  if (peak > 32767.0 / 32768.0) {
    scale = (32767.0 / 32768.0) / peak;
    for (i = 0; i < n; i++)
      noisy->samples[i] *= scale;
  }
  if (!wav_file_write_s16 (noisy, argv[3], NULL, &error)) {
    g_printerr ("rnndenoise-mix: %s\n", error->message);
    return 1;
  }
  g_print ("mixed at %.2f dB SNR (noise gain %.4f, mixture scaled by %.4f "
           "to avoid clipping): %s\n",
      10.0 * log10 (p_clean / (gain * gain * p_noise)), gain, scale, argv[3]);
  return 0;
}
