/* rnndenoise — training tools: audio input and the features file
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp/dsp_frame_config.h"
#include "train_io.h"

/**
 * train_get_u32:
 * @p: 4 bytes.
 *
 * Returns: the little-endian u32 at @p.
 */
guint32
train_get_u32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16
      | (guint32) p[3] << 24;
}

/**
 * train_put_u32:
 * @p: 4 bytes, written.
 * @v: the value, stored little-endian.
 */
void
train_put_u32 (guint8 *p, guint32 v)
{
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = (v >> 24) & 0xff;
}

static guint16
get_u16 (const guint8 *p)
{
  return (guint16) (p[0] | p[1] << 8);
}

/* @n little-endian float32 values from @p. */
static gfloat *
decode_floats (const guint8 *p, gsize n)
{
  gfloat *out = g_new (gfloat, MAX (n, 1));
  gsize i;

  for (i = 0; i < n; i++) {
    guint32 u = train_get_u32 (p + 4 * i);

    memcpy (&out[i], &u, sizeof (gfloat));
  }
  return out;
}

/* The low-pass filter of decimate(): a Kaiser-windowed sinc of
 * 2 * DECIMATE_HALF_TAPS * factor + 1 taps at the file's rate, cut off at
 * DECIMATE_CUTOFF of the new Nyquist frequency (about 70 dB down from 8 kHz
 * on when 48 kHz becomes 16 kHz; the band edge of a 16 kHz frame layout is
 * its Nyquist frequency, so what is left just under it matters little). */
#define DECIMATE_HALF_TAPS 32
#define DECIMATE_CUTOFF 0.93
#define DECIMATE_KAISER_BETA 7.0

/* The zeroth-order modified Bessel function of the first kind. */
static double
bessel_i0 (double x)
{
  double sum = 1.0, term = 1.0;
  guint k;

  for (k = 1; k < 50; k++) {
    term *= (x / (2.0 * k)) * (x / (2.0 * k));
    sum += term;
  }
  return sum;
}

/* The 2 @half + 1 taps of a linear-phase low-pass filter cut off at
 * @cutoff of the Nyquist frequency: a sinc under a Kaiser window of
 * parameter @beta (unity gain at 0 Hz). */
static gfloat *
kaiser_sinc_taps (gint half, double cutoff, double beta)
{
  gfloat *taps = g_new (gfloat, 2 * half + 1);
  gint k;

  for (k = -half; k <= half; k++) {
    double r = (double) k / half;
    double x = G_PI * cutoff * k;
    double sinc = k == 0 ? 1.0 : sin (x) / x;
    double w = bessel_i0 (beta * sqrt (1.0 - r * r)) / bessel_i0 (beta);

    taps[k + half] = (gfloat) (cutoff * sinc * w);
  }
  return taps;
}

/* Low-pass filters @n samples and keeps every @factor-th: output sample j is
 * centred on input sample j * factor (edges padded with zeros). Returns a
 * new array of ceil (n / factor) samples (at least 1 allocated). */
static gfloat *
decimate (const gfloat *in, gsize n, guint factor, gsize *n_out)
{
  gint half = DECIMATE_HALF_TAPS * (gint) factor;
  double cutoff = DECIMATE_CUTOFF / factor; /* of the input Nyquist */
  gfloat *taps = kaiser_sinc_taps (half, cutoff, DECIMATE_KAISER_BETA);
  gsize n_dec = (n + factor - 1) / factor, j;
  gfloat *out = g_new0 (gfloat, MAX (n_dec, 1));

  for (j = 0; j < n_dec; j++) {
    gssize centre = (gssize) (j * factor);
    gssize lo = MAX (centre - half, 0);
    gssize hi = MIN (centre + half, (gssize) n - 1);
    double acc = 0.0;
    gssize i;

    for (i = lo; i <= hi; i++)
      acc += taps[i - centre + half] * in[i];
    out[j] = (gfloat) acc;
  }
  g_free (taps);
  *n_out = n_dec;
  return out;
}

/* Decodes a mono WAV at @rate Hz, or at an integer multiple of it (up to
 * 6 times), then decimated to @rate: PCM 16-bit or IEEE float 32-bit. */
static gfloat *
parse_wav (const gchar *path, const guint8 *data, gsize size, guint rate,
    gsize *n_out, GError **error)
{
  const guint8 *samples = NULL;
  gsize pos = 12, n_bytes = 0, i, n;
  guint format = 0, channels = 0, file_rate = 0, bits = 0;
  gfloat *out;

  while (pos + 8 <= size) {
    gsize len = train_get_u32 (data + pos + 4);

    len = MIN (len, size - pos - 8);
    if (memcmp (data + pos, "fmt ", 4) == 0 && len >= 16) {
      format = get_u16 (data + pos + 8);
      channels = get_u16 (data + pos + 10);
      file_rate = train_get_u32 (data + pos + 12);
      bits = get_u16 (data + pos + 22);
      if (format == 0xfffe && len >= 26)
        format = get_u16 (data + pos + 32);
    } else if (memcmp (data + pos, "data", 4) == 0) {
      samples = data + pos + 8;
      n_bytes = len;
    }
    pos += 8 + len + (len & 1);
  }

  if (samples == NULL || channels == 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: no fmt or data chunk", path);
    return NULL;
  }
  if (channels != 1 || rate == 0 || file_rate % rate != 0
      || file_rate / rate < 1 || file_rate / rate > 6) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: %u channels at %u Hz, need 1 channel at %u Hz (or 2 to 6 "
        "times that)",
        path, channels, file_rate, rate);
    return NULL;
  }

  if (format == 1 && bits == 16) {
    n = n_bytes / 2;
    out = g_new (gfloat, MAX (n, 1));
    for (i = 0; i < n; i++)
      out[i] = (gint16) get_u16 (samples + 2 * i) / 32768.0f;
  } else if (format == 3 && bits == 32) {
    n = n_bytes / 4;
    out = decode_floats (samples, n);
  } else {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: WAV format %u with %u bits, need 16-bit PCM or 32-bit float", path,
        format, bits);
    return NULL;
  }
  if (file_rate != rate) {
    gfloat *full = out;

    out = decimate (full, n, file_rate / rate, &n);
    g_free (full);
  }
  *n_out = n;
  return out;
}

/* train_low_pass()'s filter: 70 dB down (Kaiser beta 7) at the band limit,
 * its transition band LOW_PASS_WIDTH_HZ wide (a quarter of the limit if
 * that is narrower) and ending there. */
#define LOW_PASS_KAISER_BETA 7.0
#define LOW_PASS_ATTENUATION_DB 70.0
#define LOW_PASS_WIDTH_HZ 1000.0

/**
 * train_low_pass:
 * @x: (inout): @n samples at @sample_rate, filtered in place.
 * @n: the number of samples.
 * @sample_rate: their rate, Hz.
 * @limit_hz: the band limit, Hz, above 0 and below half @sample_rate.
 *
 * Takes away what lies above @limit_hz, as a recording made or sent at a
 * lower rate and played at @sample_rate has nothing there: a linear-phase
 * FIR low-pass, about 70 dB down from @limit_hz on, its delay taken out
 * (the output stays aligned with the input; the edges are padded with
 * zeros).
 */
void
train_low_pass (gfloat *x, gsize n, guint sample_rate, double limit_hz)
{
  double width = MIN (LOW_PASS_WIDTH_HZ, limit_hz / 4.0);
  double nyquist = sample_rate / 2.0;
  /* Kaiser's estimate of the length for the attenuation and width. */
  gint half = (gint) ceil (
      (LOW_PASS_ATTENUATION_DB - 7.95) / (14.36 * width / sample_rate) / 2.0);
  gfloat *taps = kaiser_sinc_taps (half, (limit_hz - width / 2.0) / nyquist,
      LOW_PASS_KAISER_BETA);
  gfloat *in = g_new0 (gfloat, n + 2 * (gsize) half);
  gsize j;

  memcpy (in + half, x, n * sizeof (gfloat));
  for (j = 0; j < n; j++) {
    const gfloat *window = in + j;
    gfloat acc = 0.0f;
    gint k;

    for (k = 0; k <= 2 * half; k++)
      acc += taps[k] * window[k];
    x[j] = acc;
  }
  g_free (in);
  g_free (taps);
}

/**
 * train_load_audio:
 * @path: a mono WAV file (16-bit PCM or 32-bit float) or, for any file not
 *   starting with a RIFF/WAVE header, raw little-endian float32 samples.
 * @sample_rate: the rate wanted, Hz: a WAV file must have it or an integer
 *   multiple of it up to 6 times (48 kHz for 16 kHz), then it is low-pass
 *   filtered and decimated to it; raw samples are taken to be at it.
 * @n_out: (out): the number of samples.
 * @error: return location for a #G_FILE_ERROR.
 *
 * Returns: (transfer full) (nullable): the samples (16-bit scaled to
 *   -1..1), or NULL with @error set; free with g_free().
 */
gfloat *
train_load_audio (const gchar *path, guint sample_rate, gsize *n_out,
    GError **error)
{
  gchar *data = NULL;
  gfloat *out;
  gsize size;

  if (!g_file_get_contents (path, &data, &size, error))
    return NULL;

  if (size >= 12 && memcmp (data, "RIFF", 4) == 0
      && memcmp (data + 8, "WAVE", 4) == 0) {
    out = parse_wav (path, (const guint8 *) data, size, sample_rate, n_out,
        error);
  } else {
    *n_out = size / 4;
    out = decode_floats ((const guint8 *) data, *n_out);
  }
  g_free (data);
  return out;
}

static gboolean
write_bytes (FILE *out, const void *data, gsize size, GError **error)
{
  if (fwrite (data, 1, size, out) != size) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "write failed");
    return FALSE;
  }
  return TRUE;
}

/**
 * train_write_floats:
 * @out: a stream open for writing.
 * @v: @n floats.
 * @n: the number of floats.
 * @error: return location for a #G_FILE_ERROR.
 *
 * Writes @v as little-endian float32.
 *
 * Returns: TRUE, or FALSE with @error set.
 */
gboolean
train_write_floats (FILE *out, const gfloat *v, gsize n, GError **error)
{
  guint8 buf[4096];
  gsize i, k = 0;

  for (i = 0; i < n; i++) {
    guint32 u;

    memcpy (&u, &v[i], sizeof (u));
    train_put_u32 (buf + k, u);
    k += 4;
    if (k == sizeof (buf) || i + 1 == n) {
      if (!write_bytes (out, buf, k, error))
        return FALSE;
      k = 0;
    }
  }
  return TRUE;
}

/**
 * train_features_write_header:
 * @out: a stream open for writing, at the start of the file.
 * @head: the header.
 * @error: return location for a #G_FILE_ERROR.
 *
 * Writes the TRAIN_FEATURES_HEADER_SIZE header bytes, then the
 * n_bands + 1 band edges as u32.
 *
 * Returns: TRUE, or FALSE with @error set.
 */
gboolean
train_features_write_header (FILE *out, const TrainFeaturesHeader *head,
    GError **error)
{
  guint8 buf[TRAIN_FEATURES_HEADER_SIZE + 4 * (DSP_MAX_BANDS + 1)];
  const DspFrameConfig *cfg = &head->cfg;
  guint32 fields[10];
  guint i;

  fields[0] = TRAIN_FEATURES_VERSION;
  fields[1] = cfg->sample_rate;
  fields[2] = cfg->hop;
  fields[3] = cfg->window;
  fields[4] = cfg->n_bands;
  fields[5] = cfg->feature_layout_id;
  fields[6] = head->n_features;
  fields[7] = head->row_size;
  fields[8] = head->n_sequences;
  fields[9] = head->n_frames;

  memcpy (buf, TRAIN_FEATURES_MAGIC, 4);
  for (i = 0; i < G_N_ELEMENTS (fields); i++)
    train_put_u32 (buf + 4 + 4 * i, fields[i]);
  for (i = 0; i <= cfg->n_bands; i++)
    train_put_u32 (buf + TRAIN_FEATURES_HEADER_SIZE + 4 * i,
        cfg->band_edges[i]);
  return write_bytes (out, buf,
      TRAIN_FEATURES_HEADER_SIZE + 4 * (cfg->n_bands + 1), error);
}

/* Fills @head from the file's first bytes; checks them against @size. */
static gboolean
parse_header (const gchar *path, const guint8 *data, gsize size,
    TrainFeaturesHeader *head, gsize *rows_at, GError **error)
{
  DspFrameConfig *cfg = &head->cfg;
  gsize need;
  guint i;

  if (size < TRAIN_FEATURES_HEADER_SIZE
      || memcmp (data, TRAIN_FEATURES_MAGIC, 4) != 0
      || train_get_u32 (data + 4) != TRAIN_FEATURES_VERSION) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: not a features file (version %u)", path, TRAIN_FEATURES_VERSION);
    return FALSE;
  }
  memset (head, 0, sizeof (*head));
  cfg->sample_rate = train_get_u32 (data + 8);
  cfg->hop = train_get_u32 (data + 12);
  cfg->window = train_get_u32 (data + 16);
  cfg->n_bands = train_get_u32 (data + 20);
  cfg->feature_layout_id = train_get_u32 (data + 24);
  head->n_features = train_get_u32 (data + 28);
  head->row_size = train_get_u32 (data + 32);
  head->n_sequences = train_get_u32 (data + 36);
  head->n_frames = train_get_u32 (data + 40);
  if (cfg->n_bands > DSP_MAX_BANDS
      || head->row_size != head->n_features + cfg->n_bands + 1) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: %u bands, row size %u", path, cfg->n_bands, head->row_size);
    return FALSE;
  }
  *rows_at = TRAIN_FEATURES_HEADER_SIZE + 4 * ((gsize) cfg->n_bands + 1);
  need = *rows_at
      + 4 * ((gsize) head->n_frames * head->row_size + head->n_sequences);
  if (size != need) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: %" G_GSIZE_FORMAT " bytes, header says %" G_GSIZE_FORMAT, path,
        size, need);
    return FALSE;
  }
  for (i = 0; i <= cfg->n_bands; i++)
    cfg->band_edges[i]
        = (guint16) train_get_u32 (data + TRAIN_FEATURES_HEADER_SIZE + 4 * i);
  return dsp_frame_config_validate (cfg, error);
}

/**
 * train_features_load:
 * @path: a file written by rnndenoise-features.
 * @error: return location for a #G_FILE_ERROR or #DSP_ERROR.
 *
 * Returns: (transfer full) (nullable): the file's rows and sequence lengths,
 *   or NULL with @error set; free with train_features_free().
 */
TrainFeatures *
train_features_load (const gchar *path, GError **error)
{
  TrainFeatures *features;
  TrainFeaturesHeader head;
  gchar *data = NULL;
  gsize size, rows_at, n_values, i, total = 0;

  if (!g_file_get_contents (path, &data, &size, error))
    return NULL;
  if (!parse_header (path, (const guint8 *) data, size, &head, &rows_at,
          error)) {
    g_free (data);
    return NULL;
  }

  n_values = (gsize) head.n_frames * head.row_size;
  features = g_new0 (TrainFeatures, 1);
  features->head = head;
  features->rows = decode_floats ((const guint8 *) data + rows_at, n_values);
  features->lengths = g_new (guint32, MAX (head.n_sequences, 1));
  for (i = 0; i < head.n_sequences; i++) {
    features->lengths[i]
        = train_get_u32 ((const guint8 *) data + rows_at + 4 * (n_values + i));
    total += features->lengths[i];
  }
  g_free (data);

  if (total != head.n_frames) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: sequences hold %" G_GSIZE_FORMAT " frames, header says %u", path,
        total, head.n_frames);
    train_features_free (features);
    return NULL;
  }
  return features;
}

/**
 * train_features_free:
 * @features: (nullable): from train_features_load().
 */
void
train_features_free (TrainFeatures *features)
{
  if (features == NULL)
    return;
  g_free (features->rows);
  g_free (features->lengths);
  g_free (features);
}
