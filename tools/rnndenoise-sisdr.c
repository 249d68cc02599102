/* rnndenoise — tools: SI-SDR of an estimate against a reference
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: rnndenoise-sisdr [--max-delay-ms MS] [--quiet] REFERENCE.wav
 *            ESTIMATE.wav
 *
 * Prints the scale-invariant signal-to-distortion ratio of ESTIMATE
 * against REFERENCE in dB (see sisdr.c). Both files must have the same rate
 * and channel count; 8/16/24/32-bit PCM and 32/64-bit float are read. With
 * --max-delay-ms the estimate may lag or lead by a constant delay of up to
 * that many milliseconds, and the best delay is used and printed; by
 * default the files are compared sample by sample. With several channels
 * the figure is the mean over the channels.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <glib.h>

#include "sisdr.h"
#include "wavfile.h"

static gdouble max_delay_ms = 0.0;
static gboolean quiet = FALSE;

static GOptionEntry entries[] = {
  { "max-delay-ms", 'd', 0, G_OPTION_ARG_DOUBLE, &max_delay_ms,
      "Search a constant delay of up to MS milliseconds either way "
      "(default 0: aligned)",
      "MS" },
  { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print only the SI-SDR in dB",
      NULL },
  G_OPTION_ENTRY_NULL,
};

static void
format_db (gchar *buf, gsize size, gdouble db)
{
  if (isinf (db))
    g_strlcpy (buf, db > 0 ? "inf" : "-inf", size);
  else
    g_snprintf (buf, size, "%.2f", db);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (WavFile) reference = NULL;
  g_autoptr (WavFile) estimate = NULL;
  gdouble **ref_channels, **est_channels;
  gdouble sum = 0.0, db;
  gsize n_compared = 0, n;
  gchar text[32];
  gint64 delay = 0, max_delay;
  guint c;

  context = g_option_context_new ("REFERENCE.wav ESTIMATE.wav");
  g_option_context_set_summary (context,
      "Prints the SI-SDR (dB) of ESTIMATE against REFERENCE.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error)) {
    g_printerr ("rnndenoise-sisdr: %s\n", error->message);
    return 2;
  }
  if (argc != 3 || max_delay_ms < 0.0 || max_delay_ms > 1000.0) {
    g_printerr ("Usage: rnndenoise-sisdr [--max-delay-ms MS] [--quiet] "
                "REFERENCE.wav ESTIMATE.wav (MS in 0..1000)\n");
    return 2;
  }

  reference = wav_file_read (argv[1], &error);
  if (reference != NULL)
    estimate = wav_file_read (argv[2], &error);
  if (reference == NULL || estimate == NULL) {
    g_printerr ("rnndenoise-sisdr: %s\n", error->message);
    return 1;
  }
  if (reference->rate != estimate->rate
      || reference->channels != estimate->channels) {
    g_printerr ("rnndenoise-sisdr: the reference is %u Hz, %u channel(s); "
                "the estimate is %u Hz, %u channel(s)\n",
        reference->rate, reference->channels, estimate->rate,
        estimate->channels);
    return 1;
  }
  if (reference->n_frames != estimate->n_frames && !quiet)
    g_printerr ("rnndenoise-sisdr: note: the reference has %" G_GSIZE_FORMAT
                " samples, the estimate %" G_GSIZE_FORMAT
                "; the common part is compared\n",
        reference->n_frames, estimate->n_frames);

  ref_channels = g_new (gdouble *, reference->channels);
  est_channels = g_new (gdouble *, reference->channels);
  for (c = 0; c < reference->channels; c++) {
    ref_channels[c] = wav_file_get_channel (reference, c);
    est_channels[c] = wav_file_get_channel (estimate, c);
  }

  max_delay = (gint64) llround (max_delay_ms * reference->rate / 1000.0);
  if (max_delay > 0)
    delay = sisdr_find_delay ((const gdouble *const *) ref_channels,
        reference->n_frames, (const gdouble *const *) est_channels,
        estimate->n_frames, reference->channels, max_delay);

  for (c = 0; c < reference->channels; c++) {
    db = sisdr_compute (ref_channels[c], reference->n_frames, est_channels[c],
        estimate->n_frames, delay, &n);
    if (isnan (db)) {
      g_printerr ("rnndenoise-sisdr: channel %u of the reference is silent "
                  "or the files do not overlap\n",
          c);
      return 1;
    }
    if (reference->channels > 1 && !quiet) {
      format_db (text, sizeof (text), db);
      g_print ("channel %u: %s dB\n", c, text);
    }
    sum += db;
    n_compared = n;
  }
  for (c = 0; c < reference->channels; c++) {
    g_free (ref_channels[c]);
    g_free (est_channels[c]);
  }
  g_free (ref_channels);
  g_free (est_channels);

  format_db (text, sizeof (text), sum / reference->channels);
  if (quiet)
    g_print ("%s\n", text);
  else
    g_print ("SI-SDR %s dB (delay %+" G_GINT64_FORMAT
             " samples, %" G_GSIZE_FORMAT " samples compared)\n",
        text, delay, n_compared);
  return 0;
}
