/* rnndenoise — rnndenoise-features: training features and targets
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   rnndenoise-features [--layout N] [--rate HZ] [--bins N BINS]
 *                       [--level-normalization] CLEAN NOISE OUT
 *   rnndenoise-features [--layout N] [--rate HZ] [--bins N BINS]
 *                       [--level-normalization] --list LIST OUT
 *
 * Reads pairs of clean speech and noise (mono 16-bit PCM or 32-bit float
 * WAV, or raw little-endian float32 without a WAV header), mixes
 * each pair (noisy = clean + noise) and runs the element's own analysis on
 * it: one DspStft and DspFeatures per signal, one row per 10 ms frame:
 *
 *   features   n_features floats: dsp_features_compute() on the noisy mix
 *              (and, for layout 3, dsp_pitch_features())
 *   gains      n_bands floats: sqrt (E_clean[b] / E_noisy[b]) clipped to
 *              0..1, from dsp_features_band_energies(); -1 where both
 *              energies are below GAIN_SILENCE (nothing to learn there)
 *   vad        1 float: 1 speech, 0 no speech, 0.5 uncertain (a hangover
 *              on the clean frame energy relative to the pair's loudest
 *              frame; 0 throughout if the clean signal is silent)
 *
 * --layout picks the feature layout (1, the default, 2 or 3) and with it the
 * bands (dsp_frame_config_init_layout()). --rate is the sample rate of the
 * frames (48000 by default); WAV files at an integer multiple of it are
 * low-pass filtered and decimated first (train_load_audio()), so the 48 kHz
 * training mixtures also make the features of a 16 kHz model.
 *
 * A LIST has one pair per line,
 * "CLEAN NOISE [BANDWIDTH_HZ [NOISE_GAIN_DB [BAND_LIMIT_HZ]]]", paths
 * relative to the list's folder; empty lines and lines starting with '#'
 * are skipped. BANDWIDTH_HZ is the clean speech's bandwidth ("-" for
 * none): the gain targets of bands centred above it are marked -1 (not
 * counted), so that a band-limited recording teaches only the bands it
 * covers rather than "silence up there". NOISE_GAIN_DB (0 if absent)
 * scales the noise before mixing, so that one synthesised pair can also
 * be learnt at a higher SNR or nearly clean without writing new audio.
 * BAND_LIMIT_HZ ("-" or absent for none) low-passes both the speech and
 * the noise there before mixing (train_low_pass()), as a mixture recorded
 * or sent at a lower rate and played at this one has nothing above it; the
 * targets of the bands above it are marked -1 too. A limit at or above
 * the frames' Nyquist frequency takes nothing away, so one list serves
 * both rates.
 * Each pair is one sequence and starts from fresh analysis state, as a
 * stream does. A trailing partial frame is dropped.
 *
 * --level-normalization computes the features as the processor does with
 * level normalisation on (dsp_processor_set_level_normalization()): on the
 * noisy spectrum scaled by the gain of a level tracker (dsp_level.h) that
 * follows the noisy mix from the start of each pair, so that a network
 * learns from the inputs it will read. The targets do not change: the
 * gains are ratios of the unscaled energies, the VAD and --bins read the
 * unscaled signals.
 *
 * --bins N BINS also writes, for the same frames in the same order, the
 * first N FFT bins of each frame to BINS (raw little-endian float32, 3 N
 * values per frame): the noisy power |X[k]|^2, the clean power |S[k]|^2
 * and Re (S[k] conj (X[k])), k = 0 .. N - 1, in the analysis's own
 * scaling. From them, the error energy of any real gain g on bin k,
 * |g X - S|^2 = g^2 |X|^2 - 2 g Re (S conj X) + |S|^2, can be computed
 * without the audio: what per-bin gains below a band's resolution would
 * win (dsp/train/bin_head.py).
 *
 * OUT is little-endian: the magic "RNDF", then u32 version (1),
 * sample_rate, hop, window, n_bands, feature_layout_id, n_features,
 * row_size (n_features + n_bands + 1), n_sequences and n_frames (44 bytes in
 * all); the n_bands + 1 band edges as u32; n_frames rows of row_size
 * float32; then n_sequences u32 frame counts, one per pair in input order.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "dsp/dsp_features.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_level.h"
#include "dsp/dsp_pitch.h"
#include "dsp/dsp_stft.h"
#include "train_io.h"

#define DEFAULT_SAMPLE_RATE 48000

/* Band energy (normalized spectra, as DSP_FEATURES_ENERGY_FLOOR) below which
 * a band counts as empty; both clean and noisy empty gives gain -1. */
#define GAIN_SILENCE 5e-11f
/* Added to the noisy energy in the gain ratio. */
#define GAIN_EPSILON 1e-12f
/* A clean signal whose loudest frame is below this energy holds no speech. */
#define VAD_SILENCE 1e-9f
/* Frame energies relative to the loudest clean frame (-30, -40, -50 dB). */
#define VAD_SPEECH 1e-3f
#define VAD_MAYBE 1e-4f
#define VAD_QUIET 1e-5f
/* Hangover counter: at or above VAD_OFF no speech, above 0 uncertain. */
#define VAD_COUNT_MAX 15
/* Fields of a list line: clean, noise, bandwidth, noise gain, band limit. */
#define LIST_FIELDS 5
#define VAD_OFF 10

typedef struct
{
  DspFrameConfig cfg;
  guint n_features;
  guint row_size;
  DspStft *noisy_stft;   /* owned */
  DspStft *clean_stft;   /* owned */
  DspFeatures *features; /* owned; noisy features */
  /* owned; only its band energies are used: of the clean spectrum, and
   * with --level-normalization of the unscaled noisy one */
  DspFeatures *clean_energy;
  DspPitch *pitch;              /* owned; noisy pitch, layout 3 only */
  gboolean level_normalization; /* --level-normalization */
  DspLevel level;               /* the noisy mix's level, each pair anew */
  guint n_bin_values;           /* --bins N: N; 0 without */
  FILE *bins_out;               /* owned; --bins' file, NULL without */
} Extractor;

/* The 3 @n values of one frame's first @n bins for --bins (see the top). */
static void
bin_values (guint n, const gfloat *noisy_spec, const gfloat *clean_spec,
    gfloat *out)
{
  guint k;

  for (k = 0; k < n; k++) {
    gfloat xr = noisy_spec[2 * k], xi = noisy_spec[2 * k + 1];
    gfloat sr = clean_spec[2 * k], si = clean_spec[2 * k + 1];

    out[k] = xr * xr + xi * xi;
    out[n + k] = sr * sr + si * si;
    out[2 * n + k] = sr * xr + si * xi;
  }
}

/* Band gains of one frame from the clean and noisy band energies. */
static void
ideal_gains (guint n_bands, const gfloat *clean, const gfloat *noisy,
    gfloat *gains)
{
  guint b;

  for (b = 0; b < n_bands; b++) {
    if (clean[b] < GAIN_SILENCE && noisy[b] < GAIN_SILENCE)
      gains[b] = -1.0f;
    else
      gains[b]
          = CLAMP (sqrtf (clean[b] / (noisy[b] + GAIN_EPSILON)), 0.0f, 1.0f);
  }
}

/* Fills the VAD column of @n_frames rows from the clean frame energies. */
static void
vad_targets (const gfloat *energy, guint n_frames, guint row_size, gfloat *rows)
{
  gfloat peak = 0.0f;
  gint count = VAD_COUNT_MAX;
  guint t;

  for (t = 0; t < n_frames; t++)
    peak = MAX (peak, energy[t]);

  for (t = 0; t < n_frames; t++) {
    gfloat *vad = rows + (gsize) t * row_size + row_size - 1;
    gfloat rel = peak > 0.0f ? energy[t] / peak : 0.0f;

    if (peak < VAD_SILENCE) {
      *vad = 0.0f;
      continue;
    }
    if (rel > VAD_SPEECH)
      count = 0;
    else if (rel > VAD_MAYBE)
      count -= 5;
    else if (rel > VAD_QUIET)
      count += 1;
    else
      count += 2;
    count = CLAMP (count, 0, VAD_COUNT_MAX);
    *vad = count >= VAD_OFF ? 0.0f : count > 0 ? 0.5f : 1.0f;
  }
}

/* The first band whose centre lies above @bandwidth_hz (n_bands if none). */
static guint
first_band_above (const DspFrameConfig *cfg, double bandwidth_hz)
{
  double bin_hz = (double) cfg->sample_rate / cfg->window;
  guint b;

  for (b = 0; b < cfg->n_bands; b++) {
    double centre = 0.5 * (cfg->band_edges[b] + cfg->band_edges[b + 1]);

    if (centre * bin_hz > bandwidth_hz)
      return b;
  }
  return cfg->n_bands;
}

/* The spectrum the features of a frame are computed on, as the processor
 * computes them (dsp_processor.c, analysis_spectrum()): @noisy_spec, or
 * with --level-normalization its copy in @scaled scaled by the level
 * tracker's gain after it has heard the frame's @noisy samples. */
static const gfloat *
analysis_spectrum (Extractor *ex, const gfloat *noisy, const gfloat *noisy_spec,
    gfloat *scaled)
{
  if (!ex->level_normalization)
    return noisy_spec;
  dsp_level_update (&ex->level, noisy, ex->cfg.hop);
  dsp_level_scale_spectrum (&ex->level, noisy_spec,
      dsp_frame_config_get_n_bins (&ex->cfg), scaled);
  return scaled;
}

/* Rows for one pair of @n samples each, and with --bins the frames' bin
 * values into @bin_rows (3 n_bin_values per frame); returns the number of
 * frames. Gain targets of bands centred above @bandwidth_hz are -1. */
static guint
extract_sequence (Extractor *ex, const gfloat *clean, const gfloat *noise,
    gsize n, double bandwidth_hz, gfloat *rows, gfloat *bin_rows)
{
  guint masked_from = first_band_above (&ex->cfg, bandwidth_hz);
  gfloat noisy[DSP_MAX_HOP];
  gfloat noisy_spec[2 * DSP_MAX_BINS], clean_spec[2 * DSP_MAX_BINS];
  gfloat pitch_spec[2 * DSP_MAX_BINS], scaled[2 * DSP_MAX_BINS];
  gfloat noisy_e[DSP_MAX_BANDS], clean_e[DSP_MAX_BANDS];
  guint hop = ex->cfg.hop, n_bands = ex->cfg.n_bands;
  guint n_frames = (guint) (n / hop), t, i, b;
  gfloat *energy = g_new (gfloat, MAX (n_frames, 1));
  const gfloat *analysed;

  dsp_stft_reset (ex->noisy_stft);
  dsp_stft_reset (ex->clean_stft);
  dsp_features_reset (ex->features);
  if (ex->pitch != NULL)
    dsp_pitch_reset (ex->pitch);
  dsp_level_init (&ex->level, ex->cfg.sample_rate, hop);

  for (t = 0; t < n_frames; t++) {
    const gfloat *c = clean + (gsize) t * hop;
    const gfloat *z = noise + (gsize) t * hop;
    gfloat *row = rows + (gsize) t * ex->row_size;

    for (i = 0; i < hop; i++)
      noisy[i] = c[i] + z[i];
    dsp_stft_analyze (ex->noisy_stft, noisy, noisy_spec);
    dsp_stft_analyze (ex->clean_stft, c, clean_spec);
    analysed = analysis_spectrum (ex, noisy, noisy_spec, scaled);
    dsp_features_compute (ex->features, analysed, row, noisy_e);
    if (ex->pitch != NULL) {
      dsp_pitch_analyze (ex->pitch, noisy, pitch_spec);
      dsp_pitch_features (ex->pitch, ex->features, noisy_e, analysed,
          pitch_spec, row + DSP_PITCH_FEATURES_OFFSET (n_bands));
    }
    /* The targets are ratios of the energies the gains will act on: the
     * unscaled ones. */
    if (analysed != noisy_spec)
      dsp_features_band_energies (ex->clean_energy, noisy_spec, noisy_e);
    if (bin_rows != NULL)
      bin_values (ex->n_bin_values, noisy_spec, clean_spec,
          bin_rows + (gsize) t * 3 * ex->n_bin_values);
    dsp_features_band_energies (ex->clean_energy, clean_spec, clean_e);
    ideal_gains (n_bands, clean_e, noisy_e, row + ex->n_features);
    for (b = masked_from; b < n_bands; b++)
      row[ex->n_features + b] = -1.0f;

    energy[t] = 0.0f;
    for (b = 0; b < n_bands; b++)
      energy[t] += clean_e[b];
  }
  vad_targets (energy, n_frames, ex->row_size, rows);
  g_free (energy);
  return n_frames;
}

/* The noise gain field of a list line: a linear factor from dB, 1 when
 * empty. */
static gboolean
parse_noise_gain (const gchar *text, double *gain, GError **error)
{
  gchar *end;
  double db;

  if (text[0] == '\0') {
    *gain = 1.0;
    return TRUE;
  }
  db = g_ascii_strtod (text, &end);
  if (*end != '\0' || !isfinite (db) || db > 60.0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "noise gain \"%s\" is not a number of dB up to 60", text);
    return FALSE;
  }
  *gain = pow (10.0, db / 20.0);
  return TRUE;
}

/* Extracts one pair, the noise scaled by @noise_gain, both signals
 * low-passed at @band_limit_hz if it lies below the Nyquist frequency, and
 * appends its rows to @out. */
static gboolean
process_pair (Extractor *ex, const gchar *clean_path, const gchar *noise_path,
    double bandwidth_hz, double noise_gain, double band_limit_hz, FILE *out,
    guint32 *n_frames, GError **error)
{
  gfloat *clean, *noise, *rows, *bin_rows = NULL;
  gsize n_clean, n_noise, i, max_frames;
  gboolean ok;

  clean = train_load_audio (clean_path, ex->cfg.sample_rate, &n_clean, error);
  if (clean == NULL)
    return FALSE;
  noise = train_load_audio (noise_path, ex->cfg.sample_rate, &n_noise, error);
  if (noise == NULL) {
    g_free (clean);
    return FALSE;
  }
  if (n_clean != n_noise) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s has %" G_GSIZE_FORMAT " samples, %s has %" G_GSIZE_FORMAT,
        clean_path, n_clean, noise_path, n_noise);
    g_free (clean);
    g_free (noise);
    return FALSE;
  }

  if (noise_gain != 1.0)
    for (i = 0; i < n_noise; i++)
      noise[i] = (gfloat) (noise[i] * noise_gain);
  if (band_limit_hz < ex->cfg.sample_rate / 2.0) {
    train_low_pass (clean, n_clean, ex->cfg.sample_rate, band_limit_hz);
    train_low_pass (noise, n_noise, ex->cfg.sample_rate, band_limit_hz);
    bandwidth_hz = MIN (bandwidth_hz, band_limit_hz);
  }
  max_frames = MAX (n_clean / ex->cfg.hop, 1);
  rows = g_new (gfloat, max_frames * ex->row_size);
  if (ex->bins_out != NULL)
    bin_rows = g_new (gfloat, max_frames * 3 * ex->n_bin_values);
  *n_frames = extract_sequence (ex, clean, noise, n_clean, bandwidth_hz, rows,
      bin_rows);
  ok = train_write_floats (out, rows, (gsize) *n_frames * ex->row_size, error);
  if (ok && bin_rows != NULL)
    ok = train_write_floats (ex->bins_out, bin_rows,
        (gsize) *n_frames * 3 * ex->n_bin_values, error);
  g_free (bin_rows);
  g_free (rows);
  g_free (clean);
  g_free (noise);
  return ok;
}

/* Splits a list file into (clean, noise, bandwidth, noise gain, band limit)
 * fields: a
 * NULL-terminated array of LIST_FIELDS * n strings, the optional ones ""
 * when the line gives none. */
static gchar **
read_list (const gchar *list_path, GError **error)
{
  gchar *text, *dir, **lines;
  GPtrArray *paths;
  guint i;

  if (!g_file_get_contents (list_path, &text, NULL, error))
    return NULL;
  dir = g_path_get_dirname (list_path);
  lines = g_strsplit (text, "\n", -1);
  paths = g_ptr_array_new_with_free_func (g_free);

  for (i = 0; lines[i] != NULL; i++) {
    gchar **fields;
    guint j, n_fields;

    g_strstrip (lines[i]);
    if (lines[i][0] == '\0' || lines[i][0] == '#')
      continue;
    fields = g_strsplit_set (lines[i], " \t", -1);
    n_fields = 0;
    for (j = 0; fields[j] != NULL; j++) {
      if (fields[j][0] == '\0')
        continue;
      if (n_fields < 2)
        g_ptr_array_add (paths,
            g_path_is_absolute (fields[j])
                ? g_strdup (fields[j])
                : g_build_filename (dir, fields[j], NULL));
      else if (n_fields < LIST_FIELDS)
        g_ptr_array_add (paths, g_strdup (fields[j]));
      n_fields++;
    }
    g_strfreev (fields);
    for (j = n_fields; j < LIST_FIELDS; j++)
      g_ptr_array_add (paths, g_strdup (""));
    if (n_fields < 2 || n_fields > LIST_FIELDS) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "%s:%u: need CLEAN NOISE [BANDWIDTH_HZ [NOISE_GAIN_DB "
          "[BAND_LIMIT_HZ]]]",
          list_path, i + 1);
      break;
    }
  }
  g_strfreev (lines);
  g_free (dir);
  g_free (text);
  if (error != NULL && *error != NULL) {
    g_ptr_array_free (paths, TRUE);
    return NULL;
  }
  g_ptr_array_add (paths, NULL);
  return (gchar **) g_ptr_array_free (paths, FALSE);
}

/* Writes the sequence lengths after the rows, then the final header. */
static gboolean
finish_file (FILE *out, TrainFeaturesHeader *head, GArray *lengths,
    GError **error)
{
  guint8 le[4];
  guint i;

  for (i = 0; i < lengths->len; i++) {
    train_put_u32 (le, g_array_index (lengths, guint32, i));
    if (fwrite (le, 1, 4, out) != 4) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "write failed");
      return FALSE;
    }
  }
  head->n_sequences = lengths->len;
  if (fseek (out, 0, SEEK_SET) != 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot seek");
    return FALSE;
  }
  return train_features_write_header (out, head, error);
}

/* The bandwidth or band limit field (@what) of a list line: Hz, or no
 * limit when empty or "-". */
static gboolean
parse_bandwidth (const gchar *what, const gchar *text, double *hz,
    GError **error)
{
  gchar *end;

  if (text[0] == '\0' || strcmp (text, "-") == 0) {
    *hz = G_MAXDOUBLE;
    return TRUE;
  }
  *hz = g_ascii_strtod (text, &end);
  if (*end != '\0' || !(*hz > 0.0)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s \"%s\" is not a positive number of Hz", what, text);
    return FALSE;
  }
  return TRUE;
}

/* The command line's options and outputs. */
typedef struct
{
  guint32 layout;
  guint rate;
  guint n_bins;           /* --bins N; 0 without */
  const gchar *bins_path; /* --bins' file; NULL without */
  gboolean level_normalization;
  const gchar *out_path;
} Options;

/* Opens --bins' file after checking N against the frame's bins. */
static gboolean
open_bins_output (Extractor *ex, const Options *opt, GError **error)
{
  guint available = dsp_frame_config_get_n_bins (&ex->cfg);

  if (opt->bins_path == NULL)
    return TRUE;
  if (opt->n_bins < 1 || opt->n_bins > available) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "--bins %u: a frame of this layout has bins 1..%u", opt->n_bins,
        available);
    return FALSE;
  }
  ex->bins_out = fopen (opt->bins_path, "wb");
  if (ex->bins_out == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "cannot open %s for writing", opt->bins_path);
    return FALSE;
  }
  ex->n_bin_values = opt->n_bins;
  return TRUE;
}

static gboolean
run (gchar **pairs, const Options *opt, GError **error)
{
  const gchar *out_path = opt->out_path;
  guint32 layout = opt->layout;
  Extractor ex;
  TrainFeaturesHeader head;
  GArray *lengths;
  gboolean ok;
  FILE *out;
  guint i;

  memset (&ex, 0, sizeof (ex));
  memset (&head, 0, sizeof (head));
  if (!dsp_frame_config_init_layout (&ex.cfg, opt->rate, layout, error)
      || !open_bins_output (&ex, opt, error))
    return FALSE;
  out = fopen (out_path, "wb");
  if (out == NULL) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "cannot open %s for writing", out_path);
    if (ex.bins_out != NULL)
      fclose (ex.bins_out);
    return FALSE;
  }
  ex.noisy_stft = dsp_stft_new (&ex.cfg);
  ex.clean_stft = dsp_stft_new (&ex.cfg);
  ex.features = dsp_features_new (&ex.cfg);
  ex.clean_energy = dsp_features_new (&ex.cfg);
  if (layout == DSP_FEATURE_LAYOUT_PITCH_V3)
    ex.pitch = dsp_pitch_new (&ex.cfg);
  ex.n_features = dsp_features_get_n_features (ex.features);
  ex.level_normalization = opt->level_normalization;
  ex.row_size = ex.n_features + ex.cfg.n_bands + 1;
  head.cfg = ex.cfg;
  head.n_features = ex.n_features;
  head.row_size = ex.row_size;
  lengths = g_array_new (FALSE, FALSE, sizeof (guint32));

  /* The counts are patched in once every pair is done. */
  ok = train_features_write_header (out, &head, error);
  for (i = 0; ok && pairs[i] != NULL; i += LIST_FIELDS) {
    guint32 n_frames = 0;
    double bandwidth_hz = 0.0, noise_gain = 1.0, band_limit_hz = 0.0;

    ok = parse_bandwidth ("bandwidth", pairs[i + 2], &bandwidth_hz, error)
        && parse_noise_gain (pairs[i + 3], &noise_gain, error)
        && parse_bandwidth ("band limit", pairs[i + 4], &band_limit_hz, error)
        && process_pair (&ex, pairs[i], pairs[i + 1], bandwidth_hz, noise_gain,
            band_limit_hz, out, &n_frames, error);
    g_array_append_val (lengths, n_frames);
    head.n_frames += n_frames;
  }
  if (ok)
    ok = finish_file (out, &head, lengths, error);
  if (fclose (out) != 0 && ok) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot close %s",
        out_path);
    ok = FALSE;
  }
  if (ex.bins_out != NULL && fclose (ex.bins_out) != 0 && ok) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot close %s",
        opt->bins_path);
    ok = FALSE;
  }
  if (ok)
    printf ("%s: %u sequences, %u frames of %u features, %u gains, vad\n",
        out_path, head.n_sequences, head.n_frames, ex.n_features,
        ex.cfg.n_bands);

  g_array_free (lengths, TRUE);
  dsp_stft_free (ex.noisy_stft);
  dsp_stft_free (ex.clean_stft);
  dsp_features_free (ex.features);
  dsp_features_free (ex.clean_energy);
  dsp_pitch_free (ex.pitch);
  return ok;
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  gchar **pairs;
  Options opt = { DSP_FEATURE_LAYOUT_CEPSTRUM_V1, DEFAULT_SAMPLE_RATE, 0, NULL,
    FALSE, NULL };
  gboolean ok;

  for (;;) {
    if (argc >= 3
        && (strcmp (argv[1], "--layout") == 0
            || strcmp (argv[1], "--rate") == 0)) {
      guint value = (guint) g_ascii_strtoull (argv[2], NULL, 10);

      if (strcmp (argv[1], "--layout") == 0)
        opt.layout = value;
      else
        opt.rate = value;
      argc -= 2;
      argv += 2;
    } else if (argc >= 4 && strcmp (argv[1], "--bins") == 0) {
      opt.n_bins = (guint) g_ascii_strtoull (argv[2], NULL, 10);
      opt.bins_path = argv[3];
      argc -= 3;
      argv += 3;
    } else if (argc >= 2 && strcmp (argv[1], "--level-normalization") == 0) {
      opt.level_normalization = TRUE;
      argc -= 1;
      argv += 1;
    } else {
      break;
    }
  }
  if (argc == 4 && strcmp (argv[1], "--list") == 0) {
    pairs = read_list (argv[2], &error);
  } else if (argc == 4) {
    /* One pair, its optional fields empty (as a list line without them). */
    guint f;

    pairs = g_new0 (gchar *, LIST_FIELDS + 1);
    pairs[0] = g_strdup (argv[1]);
    pairs[1] = g_strdup (argv[2]);
    for (f = 2; f < LIST_FIELDS; f++)
      pairs[f] = g_strdup ("");
  } else {
    fprintf (stderr,
        "usage: rnndenoise-features [--layout N] [--rate HZ] "
        "[--bins N BINS]\n"
        "                          [--level-normalization] CLEAN NOISE OUT\n"
        "       rnndenoise-features [--layout N] [--rate HZ] "
        "[--bins N BINS]\n"
        "                          [--level-normalization] --list LIST OUT\n");
    return 2;
  }
  opt.out_path = argv[3];
  ok = pairs != NULL && run (pairs, &opt, &error);
  g_strfreev (pairs);
  if (!ok) {
    fprintf (stderr, "rnndenoise-features: %s\n", error->message);
    g_clear_error (&error);
    return 1;
  }
  return 0;
}
