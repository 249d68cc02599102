/* rnndenoise — the speexdsp baseline of the quality report: speexdsp's
 * preprocessor with only its noise suppressor on, 480-sample (10 ms)
 * frames at 48 kHz, 16-bit mono.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: speex_denoise [--suppress DB] IN.raw OUT.raw
 *
 * IN and OUT are raw S16LE mono at 48 kHz. --suppress sets the largest
 * noise attenuation in dB (speexdsp's default, 15, when not given). The
 * automatic gain control, the VAD and the dereverberation stay off. The
 * last partial frame is zero-padded, and OUT has as many samples as IN.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <speex/speex_preprocess.h>

#define RATE 48000
#define FRAME 480

static gboolean
read_raw (const gchar *path, gint16 **samples, gsize *n_samples, GError **error)
{
  gchar *bytes;
  gsize len, i;
  gint16 *x;

  if (!g_file_get_contents (path, &bytes, &len, error))
    return FALSE;
  *n_samples = len / 2;
  x = g_new (gint16, *n_samples + FRAME);
  for (i = 0; i < *n_samples; i++) {
    guint16 v;

    memcpy (&v, bytes + 2 * i, 2);
    x[i] = (gint16) GUINT16_FROM_LE (v);
  }
  memset (x + *n_samples, 0, FRAME * sizeof (gint16));
  g_free (bytes);
  *samples = x;
  return TRUE;
}

static gboolean
write_raw (const gchar *path, const gint16 *x, gsize n_samples, GError **error)
{
  gchar *bytes = g_malloc (2 * n_samples + 1);
  gboolean ok;
  gsize i;

  for (i = 0; i < n_samples; i++) {
    guint16 v = GUINT16_TO_LE ((guint16) x[i]);

    memcpy (bytes + 2 * i, &v, 2);
  }
  ok = g_file_set_contents (path, bytes, 2 * n_samples, error);
  g_free (bytes);
  return ok;
}

static void
denoise (gint16 *x, gsize n_samples, gint suppress_db)
{
  SpeexPreprocessState *st = speex_preprocess_state_init (FRAME, RATE);
  spx_int32_t on = 1, off = 0, suppress = -suppress_db;
  gsize pos;

  speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_DENOISE, &on);
  speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_AGC, &off);
  /* The VAD is off by default; setting it only prints a warning. */
  speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_DEREVERB, &off);
  if (suppress_db > 0)
    speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &suppress);
  /* The buffer has FRAME samples of zero padding after n_samples. */
  for (pos = 0; pos < n_samples; pos += FRAME)
    speex_preprocess_run (st, x + pos);
  speex_preprocess_state_destroy (st);
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  gint16 *x = NULL;
  gsize n = 0;
  gint suppress_db = 0;
  gint arg = 1;

  if (argc == 5 && strcmp (argv[1], "--suppress") == 0) {
    suppress_db = atoi (argv[2]);
    arg = 3;
  }
  if (argc - arg != 2 || suppress_db < 0) {
    fprintf (stderr, "usage: %s [--suppress DB] IN.raw OUT.raw\n", argv[0]);
    return 2;
  }
  if (!read_raw (argv[arg], &x, &n, &error)) {
    fprintf (stderr, "speex_denoise: %s\n", error->message);
    g_clear_error (&error);
    return 1;
  }
  denoise (x, n, suppress_db);
  if (!write_raw (argv[arg + 1], x, n, &error)) {
    fprintf (stderr, "speex_denoise: %s\n", error->message);
    g_clear_error (&error);
    g_free (x);
    return 1;
  }
  g_free (x);
  return 0;
}
