/* rnndenoise — tools: reading and writing WAV files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reads RIFF/WAVE files holding integer PCM (8, 16, 24 or 32 bits) or IEEE
 * float (32 or 64 bits), plain or WAVE_FORMAT_EXTENSIBLE; writes 16-bit
 * PCM. Every field is read little-endian, byte by byte, and checked against
 * the bytes left before it is used.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "wavfile.h"

#define WAVE_FORMAT_PCM 0x0001
#define WAVE_FORMAT_IEEE_FLOAT 0x0003
#define WAVE_FORMAT_EXTENSIBLE 0xfffe

/* Written out rather than with G_DEFINE_QUARK, whose dashed argument the
 * formatter would split. */
GQuark
wav_file_error_quark (void)
{
  return g_quark_from_static_string ("wav-file-error-quark");
}

static guint16
read_u16 (const guint8 *p)
{
  return (guint16) (p[0] | (p[1] << 8));
}

static guint32
read_u32 (const guint8 *p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16)
      | ((guint32) p[3] << 24);
}

static void
write_u16 (guint8 *p, guint16 v)
{
  p[0] = v & 0xff;
  p[1] = v >> 8;
}

static void
write_u32 (guint8 *p, guint32 v)
{
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = v >> 24;
}

/**
 * wav_file_new:
 * @rate: sample rate in Hz
 * @channels: channels per frame (at least 1)
 * @n_frames: frames
 *
 * Returns: (transfer full): a WAV file of silence.
 */
WavFile *
wav_file_new (guint rate, guint channels, gsize n_frames)
{
  WavFile *wav;

  g_return_val_if_fail (channels > 0, NULL);

  wav = g_new0 (WavFile, 1);
  wav->rate = rate;
  wav->channels = channels;
  wav->n_frames = n_frames;
  wav->samples = g_new0 (gdouble, MAX (n_frames * channels, 1));
  return wav;
}

/* Decodes one sample of @bytes bytes at @p. */
static gdouble
decode_sample (const guint8 *p, guint bytes, gboolean is_float)
{
  guint32 u;
  gint32 s;
  gfloat f;
  guint64 u64;
  gdouble d;

  if (is_float && bytes == 4) {
    u = read_u32 (p);
    memcpy (&f, &u, sizeof (f));
    return f;
  }
  if (is_float) {
    u64 = (guint64) read_u32 (p) | ((guint64) read_u32 (p + 4) << 32);
    memcpy (&d, &u64, sizeof (d));
    return d;
  }
  switch (bytes) {
    case 1: /* 8-bit WAV is unsigned */
      return (p[0] - 128) / 128.0;
    case 2:
      return (gint16) read_u16 (p) / 32768.0;
    case 3:
      u = (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16);
      s = (gint32) (u << 8) >> 8;
      return s / 8388608.0;
    default:
      return (gint32) read_u32 (p) / 2147483648.0;
  }
}

/* Parses the "fmt " chunk. */
static gboolean
parse_fmt (const guint8 *p, guint32 size, guint *channels, guint *rate,
    guint *sample_bytes, gboolean *is_float, GError **error)
{
  guint tag, block_align, bits;

  if (size < 16) {
    g_set_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_FORMAT,
        "fmt chunk of %u bytes, at least 16 expected", size);
    return FALSE;
  }
  tag = read_u16 (p);
  *channels = read_u16 (p + 2);
  *rate = read_u32 (p + 4);
  block_align = read_u16 (p + 12);
  bits = read_u16 (p + 14);
  if (tag == WAVE_FORMAT_EXTENSIBLE) {
    if (size < 40) {
      g_set_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_FORMAT,
          "extensible fmt chunk of %u bytes, 40 expected", size);
      return FALSE;
    }
    tag = read_u16 (p + 24); /* the sub-format GUID starts with the tag */
  }
  if (*channels == 0 || *rate == 0 || block_align == 0
      || block_align % *channels != 0) {
    g_set_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_FORMAT,
        "%u channels, %u Hz, %u-byte frames: not a valid format", *channels,
        *rate, block_align);
    return FALSE;
  }
  *sample_bytes = block_align / *channels;
  *is_float = tag == WAVE_FORMAT_IEEE_FLOAT;
  if (tag != WAVE_FORMAT_PCM && tag != WAVE_FORMAT_IEEE_FLOAT) {
    g_set_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_UNSUPPORTED,
        "format tag 0x%04x; only PCM (1) and IEEE float (3) are read", tag);
    return FALSE;
  }
  if ((*is_float && *sample_bytes != 4 && *sample_bytes != 8)
      || (!*is_float && (*sample_bytes < 1 || *sample_bytes > 4))
      || bits > *sample_bytes * 8) {
    g_set_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_UNSUPPORTED,
        "%s samples of %u bits in %u bytes are not supported",
        *is_float ? "float" : "integer", bits, *sample_bytes);
    return FALSE;
  }
  return TRUE;
}

/**
 * wav_file_read:
 * @path: a WAV file
 * @error: return location for a #GError
 *
 * Reads and decodes a whole file. A data chunk whose size runs past the end
 * of the file (as streaming writers leave it) is read up to the end of the
 * file.
 *
 * Returns: (transfer full) (nullable): the decoded file, or NULL with
 * @error set.
 */
WavFile *
wav_file_read (const gchar *path, GError **error)
{
  guint channels = 0, rate = 0, sample_bytes = 0;
  gboolean is_float = FALSE, have_fmt = FALSE;
  const guint8 *p, *data = NULL;
  gsize length, left, data_size = 0, i, n;
  gchar *contents = NULL;
  WavFile *wav;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  p = (const guint8 *) contents;
  if (length < 12 || memcmp (p, "RIFF", 4) != 0
      || memcmp (p + 8, "WAVE", 4) != 0) {
    g_set_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_FORMAT,
        "%s: not a RIFF/WAVE file", path);
    g_free (contents);
    return NULL;
  }
  p += 12;
  left = length - 12;
  while (left >= 8 && data == NULL) {
    guint32 size = read_u32 (p + 4);

    if (memcmp (p, "data", 4) == 0) {
      if (!have_fmt)
        break;
      data = p + 8;
      data_size = MIN ((gsize) size, left - 8);
      break;
    }
    if (size > left - 8) {
      g_set_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_FORMAT,
          "%s: chunk of %u bytes with %" G_GSIZE_FORMAT " bytes left", path,
          size, left - 8);
      g_free (contents);
      return NULL;
    }
    if (memcmp (p, "fmt ", 4) == 0) {
      if (!parse_fmt (p + 8, size, &channels, &rate, &sample_bytes, &is_float,
              error)) {
        g_prefix_error (error, "%s: ", path);
        g_free (contents);
        return NULL;
      }
      have_fmt = TRUE;
    }
    /* Chunks are padded to an even size. */
    size += size & 1;
    if (size > left - 8)
      size = (guint32) (left - 8);
    p += 8 + size;
    left -= 8 + size;
  }
  if (data == NULL) {
    g_set_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_FORMAT,
        "%s: no %s chunk", path, have_fmt ? "data" : "fmt before the data");
    g_free (contents);
    return NULL;
  }

  wav = wav_file_new (rate, channels, data_size / (sample_bytes * channels));
  n = wav->n_frames * channels;
  for (i = 0; i < n; i++)
    wav->samples[i]
        = decode_sample (data + i * sample_bytes, sample_bytes, is_float);
  g_free (contents);
  return wav;
}

/**
 * wav_file_write_s16:
 * @wav: a WAV file
 * @path: the file to write
 * @n_clipped: (out) (optional): samples outside -1..1 that were clipped
 * @error: return location for a #GError
 *
 * Writes @wav as 16-bit PCM, rounding each sample to the nearest step.
 *
 * Returns: TRUE on success.
 */
gboolean
wav_file_write_s16 (const WavFile *wav, const gchar *path, guint *n_clipped,
    GError **error)
{
  gsize n, i, data_bytes;
  guint8 *bytes, *p;
  guint clipped = 0;
  gboolean ok;

  g_return_val_if_fail (wav != NULL && path != NULL, FALSE);

  n = wav->n_frames * wav->channels;
  data_bytes = n * 2;
  if (data_bytes > G_MAXUINT32 - 36) {
    g_set_error (error, WAV_FILE_ERROR, WAV_FILE_ERROR_UNSUPPORTED,
        "%" G_GSIZE_FORMAT " bytes of audio do not fit in a WAV file",
        data_bytes);
    return FALSE;
  }
  bytes = g_malloc (44 + data_bytes);
  memcpy (bytes, "RIFF", 4);
  write_u32 (bytes + 4, (guint32) (36 + data_bytes));
  memcpy (bytes + 8, "WAVEfmt ", 8);
  write_u32 (bytes + 16, 16);
  write_u16 (bytes + 20, WAVE_FORMAT_PCM);
  write_u16 (bytes + 22, (guint16) wav->channels);
  write_u32 (bytes + 24, wav->rate);
  write_u32 (bytes + 28, wav->rate * wav->channels * 2);
  write_u16 (bytes + 32, (guint16) (wav->channels * 2));
  write_u16 (bytes + 34, 16);
  memcpy (bytes + 36, "data", 4);
  write_u32 (bytes + 40, (guint32) data_bytes);
  p = bytes + 44;
  for (i = 0; i < n; i++) {
    gdouble q = round (wav->samples[i] * 32768.0);

    if (q > 32767.0 || q < -32768.0 || isnan (q)) {
      clipped++;
      q = isnan (q) ? 0.0 : CLAMP (q, -32768.0, 32767.0);
    }
    write_u16 (p + 2 * i, (guint16) (gint16) q);
  }
  ok = g_file_set_contents (path, (const gchar *) bytes, 44 + data_bytes,
      error);
  g_free (bytes);
  if (n_clipped != NULL)
    *n_clipped = clipped;
  return ok;
}

/**
 * wav_file_get_channel:
 * @wav: a WAV file
 * @channel: a channel index
 *
 * Returns: (transfer full): the @wav->n_frames samples of one channel;
 * free with g_free().
 */
gdouble *
wav_file_get_channel (const WavFile *wav, guint channel)
{
  gdouble *out;
  gsize i;

  g_return_val_if_fail (wav != NULL && channel < wav->channels, NULL);

  out = g_new (gdouble, MAX (wav->n_frames, 1));
  for (i = 0; i < wav->n_frames; i++)
    out[i] = wav->samples[i * wav->channels + channel];
  return out;
}

/**
 * wav_file_free:
 * @wav: (nullable): a WAV file
 *
 * Frees @wav.
 */
void
wav_file_free (WavFile *wav)
{
  if (wav == NULL)
    return;
  g_free (wav->samples);
  g_free (wav);
}
