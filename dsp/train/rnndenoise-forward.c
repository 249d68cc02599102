/* rnndenoise — rnndenoise-forward: run a model file as the element does
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   rnndenoise-forward run MODEL FEATURES OUT
 *   rnndenoise-forward denoise MODEL IN OUT [ATTENUATION_LIMIT_DB
 *                                [SPEECH_PROTECTION
 *                                 [STATIONARY_SUPPRESSION
 *                                  [HARMONIC_LIFT
 *                                   [LEVEL_NORMALIZATION
 *                                    [HUM_REMOVAL [SPEECH_HOLD]]]]]]]
 *
 * run: feeds the feature rows of a file written by rnndenoise-features
 * through dsp_model_forward(), each sequence from the zero state, batch 1,
 * and writes one row of n_bands gains then the VAD probability per frame
 * (little-endian float32, sequences in file order). A model with lookahead
 * L reads, for each frame, its features and those of the next L frames, a
 * sequence's last frame standing in for the frames past its end, as
 * training's gather() builds them. The training exporter compares these
 * with PyTorch's outputs.
 *
 * denoise: runs a mono 48 kHz file (WAV or raw float32, as
 * rnndenoise-features reads them) through a DspProcessor with the given
 * attenuation limit, speech protection, stationary suppression, harmonic
 * lift, level normalisation (0 or 1), hum removal (0 or 1) and speech
 * hold (the processor's defaults when not given), drains its
 * tail and writes a mono 32-bit float WAV of the same length, aligned with
 * the input. It prints the mean VAD probability.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "dsp/dsp_model.h"
#include "dsp/dsp_processor.h"
#include "train_io.h"

/* Checks that @features were made with @model's frame layout. */
static gboolean
check_layout (const DspModel *model, const TrainFeatures *features,
    GError **error)
{
  const DspFrameConfig *m = dsp_model_get_frame_config (model);
  const DspFrameConfig *f = &features->head.cfg;
  guint b;

  if (m->sample_rate != f->sample_rate || m->hop != f->hop
      || m->n_bands != f->n_bands
      || m->feature_layout_id != f->feature_layout_id
      || dsp_model_get_n_features (model) != features->head.n_features) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "model has %u Hz, hop %u, %u bands, layout %u; features have %u Hz, "
        "hop %u, %u bands, layout %u",
        m->sample_rate, m->hop, m->n_bands, m->feature_layout_id,
        f->sample_rate, f->hop, f->n_bands, f->feature_layout_id);
    return FALSE;
  }
  for (b = 0; b <= m->n_bands; b++) {
    if (m->band_edges[b] != f->band_edges[b]) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "band edge %u: model %u, features %u", b, m->band_edges[b],
          f->band_edges[b]);
      return FALSE;
    }
  }
  return TRUE;
}

/* Fills @input with the row @model reads for frame @t of the sequence of
 * @length frames starting at @rows: frame t's features, then those of
 * frames t + 1 .. t + lookahead, each clamped to the sequence's last
 * frame. */
static void
lookahead_row (const DspModel *model, const TrainFeatures *features,
    const gfloat *rows, guint length, guint t, gfloat *input)
{
  guint n_features = dsp_model_get_n_features (model);
  guint k;

  for (k = 0; k <= dsp_model_get_lookahead (model); k++) {
    guint frame = MIN (t + k, length - 1);

    memcpy (input + (gsize) k * n_features,
        rows + (gsize) frame * features->head.row_size,
        n_features * sizeof (gfloat));
  }
}

/* Runs every sequence from the zero state; writes n_bands gains and the
 * VAD per frame to @out_rows. */
static void
run_sequences (const DspModel *model, const TrainFeatures *features,
    gfloat *out_rows)
{
  guint n_bands = dsp_model_get_frame_config (model)->n_bands;
  gsize state_size = dsp_model_state_size (model, 1);
  gfloat *hidden = g_new (gfloat, MAX (state_size, 1));
  gfloat *scratch = g_new (gfloat, MAX (dsp_model_scratch_size (model, 1), 1));
  gfloat *input = g_new (gfloat, dsp_model_get_n_inputs (model));
  const gfloat *rows = features->rows;
  gsize k = 0;
  guint s, t;

  for (s = 0; s < features->head.n_sequences; s++) {
    guint length = features->lengths[s];

    memset (hidden, 0, sizeof (gfloat) * state_size);
    for (t = 0; t < length; t++) {
      lookahead_row (model, features, rows, length, t, input);
      dsp_model_forward (model, input, hidden, 1, out_rows + k,
          out_rows + k + n_bands, scratch);
      k += n_bands + 1;
    }
    rows += (gsize) length * features->head.row_size;
  }
  g_free (hidden);
  g_free (scratch);
  g_free (input);
}

static gboolean
run_features (const DspModel *model, const gchar *features_path,
    const gchar *out_path, GError **error)
{
  TrainFeatures *features;
  guint n_bands = dsp_model_get_frame_config (model)->n_bands;
  gsize n_out;
  gfloat *out_rows;
  gboolean ok;
  FILE *out;

  features = train_features_load (features_path, error);
  if (features == NULL)
    return FALSE;
  if (!check_layout (model, features, error)) {
    train_features_free (features);
    return FALSE;
  }

  n_out = (gsize) features->head.n_frames * (n_bands + 1);
  out_rows = g_new (gfloat, MAX (n_out, 1));
  run_sequences (model, features, out_rows);

  out = fopen (out_path, "wb");
  if (out == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "cannot open %s for writing", out_path);
    ok = FALSE;
  } else {
    ok = train_write_floats (out, out_rows, n_out, error);
    if (fclose (out) != 0 && ok) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot close %s",
          out_path);
      ok = FALSE;
    }
  }
  g_free (out_rows);
  train_features_free (features);
  return ok;
}

/* Writes @n samples as a mono 32-bit float WAV at @rate Hz: an 18-byte fmt
 * chunk and a fact chunk, as non-PCM formats have them. */
static gboolean
write_wav (const gchar *path, const gfloat *samples, gsize n, guint rate,
    GError **error)
{
  guint8 head[58];
  gboolean ok;
  FILE *out;

  memset (head, 0, sizeof (head));
  memcpy (head, "RIFF", 4);
  train_put_u32 (head + 4, (guint32) (sizeof (head) - 8 + 4 * n));
  memcpy (head + 8, "WAVEfmt ", 8);
  train_put_u32 (head + 16, 18);
  train_put_u32 (head + 20, 3 | 1 << 16); /* IEEE float, 1 channel */
  train_put_u32 (head + 24, rate);
  train_put_u32 (head + 28, 4 * rate);
  train_put_u32 (head + 32, 4 | 32 << 16); /* block align 4, 32 bits */
  /* head + 36: cbSize 0 */
  memcpy (head + 38, "fact", 4);
  train_put_u32 (head + 42, 4);
  train_put_u32 (head + 46, (guint32) n);
  memcpy (head + 50, "data", 4);
  train_put_u32 (head + 54, (guint32) (4 * n));

  out = fopen (path, "wb");
  if (out == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "cannot open %s for writing", path);
    return FALSE;
  }
  ok = fwrite (head, 1, sizeof (head), out) == sizeof (head);
  if (!ok)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "write failed");
  ok = ok && train_write_floats (out, samples, n, error);
  if (fclose (out) != 0 && ok) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot close %s", path);
    ok = FALSE;
  }
  return ok;
}

static gfloat
setting (const gchar *text)
{
  return (gfloat) g_ascii_strtod (text, NULL);
}

static gboolean
run_denoise (DspModel *model, const gchar *in_path, const gchar *out_path,
    gchar **settings, GError **error)
{
  guint rate = dsp_model_get_frame_config (model)->sample_rate;
  DspProcessorReport report;
  DspProcessor *proc;
  gfloat *in, *out;
  gsize n, done;
  guint given;
  gboolean ok;

  in = train_load_audio (in_path, rate, &n, error);
  if (in == NULL)
    return FALSE;
  proc = dsp_processor_new (model, 1, error);
  if (proc == NULL) {
    g_free (in);
    return FALSE;
  }
  /* The settings are positional: each one given implies those before. */
  given = g_strv_length (settings);
  if (given > 0)
    dsp_processor_set_attenuation_limit (proc, setting (settings[0]));
  if (given > 1)
    dsp_processor_set_speech_protection (proc, setting (settings[1]));
  if (given > 2)
    dsp_processor_set_stationary_suppression (proc, setting (settings[2]));
  if (given > 3)
    dsp_processor_set_harmonic_lift (proc, setting (settings[3]));
  if (given > 4)
    dsp_processor_set_level_normalization (proc, setting (settings[4]) != 0);
  if (given > 5)
    dsp_processor_set_hum_removal (proc, setting (settings[5]) != 0);
  if (given > 6)
    dsp_processor_set_speech_hold (proc, setting (settings[6]));

  /* Output sample i is input sample i; the drain gives the tail. */
  out = g_new0 (gfloat, n + dsp_processor_get_latency (proc));
  done = dsp_processor_process (proc, in, out, (guint) n, NULL, NULL, 0,
      &report);
  done += dsp_processor_drain (proc, out + done);
  ok = write_wav (out_path, out, MIN (done, n), rate, error);
  if (ok)
    printf ("%s: %" G_GSIZE_FORMAT " samples, %u frames, mean VAD %.3f\n",
        out_path, done, report.frames, report.vad_mean);

  dsp_processor_free (proc);
  g_free (in);
  g_free (out);
  return ok;
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  DspModel *model;
  gboolean ok;

  if (argc < 5
      || (argc != 5 && !(argc <= 12 && strcmp (argv[1], "denoise") == 0))
      || (strcmp (argv[1], "run") != 0 && strcmp (argv[1], "denoise") != 0)) {
    fprintf (stderr,
        "usage: rnndenoise-forward run MODEL FEATURES OUT\n"
        "       rnndenoise-forward denoise MODEL IN OUT "
        "[ATTENUATION_LIMIT_DB [SPEECH_PROTECTION "
        "[STATIONARY_SUPPRESSION [HARMONIC_LIFT "
        "[LEVEL_NORMALIZATION [HUM_REMOVAL [SPEECH_HOLD]]]]]]]\n");
    return 2;
  }
  model = dsp_model_new_from_file (argv[2], &error);
  if (model == NULL) {
    fprintf (stderr, "rnndenoise-forward: %s\n", error->message);
    g_clear_error (&error);
    return 1;
  }
  if (strcmp (argv[1], "run") == 0)
    ok = run_features (model, argv[3], argv[4], &error);
  else
    ok = run_denoise (model, argv[3], argv[4], argv + 5, &error);
  dsp_model_unref (model);
  if (!ok) {
    fprintf (stderr, "rnndenoise-forward: %s\n", error->message);
    g_clear_error (&error);
    return 1;
  }
  return 0;
}
