/* rnndenoise — tools: reading and writing WAV files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef WAV_FILE_H
#define WAV_FILE_H

#include <glib.h>

G_BEGIN_DECLS

#define WAV_FILE_ERROR (wav_file_error_quark ())
GQuark wav_file_error_quark (void);

/**
 * WavFileError:
 * @WAV_FILE_ERROR_FORMAT: the bytes are not a WAV file this code reads
 * @WAV_FILE_ERROR_UNSUPPORTED: a valid WAV file in an unsupported encoding
 */
typedef enum
{
  WAV_FILE_ERROR_FORMAT,
  WAV_FILE_ERROR_UNSUPPORTED,
} WavFileError;

/**
 * WavFile:
 * @rate: sample rate in Hz
 * @channels: channels per frame
 * @n_frames: frames (samples per channel)
 * @samples: @n_frames x @channels interleaved samples, nominal range
 *   -1..1 (integer PCM is divided by 2^(bits - 1))
 *
 * A whole WAV file decoded to doubles. Plain data: free it with
 * wav_file_free().
 */
typedef struct
{
  guint rate;
  guint channels;
  gsize n_frames;
  gdouble *samples;
} WavFile;

WavFile *wav_file_new (guint rate, guint channels, gsize n_frames);

WavFile *wav_file_read (const gchar *path, GError **error);

gboolean wav_file_write_s16 (const WavFile *wav, const gchar *path,
    guint *n_clipped, GError **error);

gdouble *wav_file_get_channel (const WavFile *wav, guint channel);

void wav_file_free (WavFile *wav);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WavFile, wav_file_free)

G_END_DECLS

#endif /* WAV_FILE_H */
