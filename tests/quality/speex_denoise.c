/* rnndenoise — the speexdsp baseline of the quality reports: speexdsp's
 * preprocessor with only its noise suppressor on, 10 ms frames (480 samples
 * at 48 kHz, 160 at 16 kHz), 16-bit mono.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: speex_denoise [--rate HZ] [--suppress DB] IN.raw OUT.raw
 *
 * IN and OUT are raw S16LE mono at HZ: 48000 (the default, the rate of
 * docs/quality.md) or 16000 (docs/quality-16k.md); a frame is HZ / 100
 * samples. --suppress sets the largest noise attenuation in dB (speexdsp's
 * default, 15, when not given). The automatic gain control, the VAD and the
 * dereverberation stay off. The last partial frame is zero-padded, and OUT
 * has as many samples as IN.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <speex/speex_preprocess.h>

#define DEFAULT_RATE 48000
/* The longest frame, 10 ms at 48 kHz: the zero padding after the input. */
#define MAX_FRAME 480

static gboolean
read_raw (const gchar *path, gint16 **samples, gsize *n_samples, GError **error)
{
  gchar *bytes;
  gsize len, i;
  gint16 *x;

  if (!g_file_get_contents (path, &bytes, &len, error))
    return FALSE;
  *n_samples = len / 2;
  x = g_new (gint16, *n_samples + MAX_FRAME);
  for (i = 0; i < *n_samples; i++) {
    guint16 v;

    memcpy (&v, bytes + 2 * i, 2);
    x[i] = (gint16) GUINT16_FROM_LE (v);
  }
  memset (x + *n_samples, 0, MAX_FRAME * sizeof (gint16));
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
denoise (gint16 *x, gsize n_samples, gint rate, gint suppress_db)
{
  gint frame = rate / 100;
  SpeexPreprocessState *st = speex_preprocess_state_init (frame, rate);
  spx_int32_t on = 1, off = 0, suppress = -suppress_db;
  gsize pos;

  speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_DENOISE, &on);
  speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_AGC, &off);
  /* The VAD is off by default; setting it only prints a warning. */
  speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_DEREVERB, &off);
  if (suppress_db > 0)
    speex_preprocess_ctl (st, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &suppress);
  /* The buffer has MAX_FRAME >= frame samples of zero padding after
   * n_samples. */
  for (pos = 0; pos < n_samples; pos += frame)
    speex_preprocess_run (st, x + pos);
  speex_preprocess_state_destroy (st);
}

/* Reads the options before IN and OUT; FALSE on a bad or unknown one.
 * *first_file is the index of IN. */
static gboolean
parse_options (int argc, char **argv, gint *rate, gint *suppress_db,
    gint *first_file)
{
  gint arg = 1;

  for (; arg + 1 < argc && g_str_has_prefix (argv[arg], "--"); arg += 2) {
    if (strcmp (argv[arg], "--rate") == 0)
      *rate = atoi (argv[arg + 1]);
    else if (strcmp (argv[arg], "--suppress") == 0)
      *suppress_db = atoi (argv[arg + 1]);
    else
      return FALSE;
  }
  *first_file = arg;
  /* Only the rates the reports use: speexdsp takes others, but no
   * report checks them. */
  return argc - arg == 2 && (*rate == 48000 || *rate == 16000)
      && *suppress_db >= 0;
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  gint16 *x = NULL;
  gsize n = 0;
  gint rate = DEFAULT_RATE;
  gint suppress_db = 0;
  gint arg;

  if (!parse_options (argc, argv, &rate, &suppress_db, &arg)) {
    fprintf (stderr,
        "usage: %s [--rate 48000|16000] [--suppress DB] IN.raw "
        "OUT.raw\n",
        argv[0]);
    return 2;
  }
  if (!read_raw (argv[arg], &x, &n, &error)) {
    fprintf (stderr, "speex_denoise: %s\n", error->message);
    g_clear_error (&error);
    return 1;
  }
  denoise (x, n, rate, suppress_db);
  if (!write_raw (argv[arg + 1], x, n, &error)) {
    fprintf (stderr, "speex_denoise: %s\n", error->message);
    g_clear_error (&error);
    g_free (x);
    return 1;
  }
  g_free (x);
  return 0;
}
