/* rnndenoise — the public C library: speech denoising with a GRU per 10 ms
 * frame, without GStreamer
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One header, one library (librnndenoise, pkg-config name rnndenoise).
 *
 * Two objects:
 *
 * - RnnDenoiseModel: the network weights and frame layout. Read-only once
 *   loaded and reference-counted (rnndenoise_model_ref() and
 *   rnndenoise_model_unref() are atomic), so one model may be shared by
 *   any number of streams in any number of threads, and may be unreffed in
 *   any order: each stream holds its own reference.
 * - RnnDenoise: one stream of 1..64 interleaved channels (its recurrent
 *   state, DSP history and settings). One stream object per thread: calls
 *   on one object must not run concurrently. Different objects are
 *   independent.
 *
 * Audio is at the model's sample rate (48000 Hz for the embedded default
 * model; rnndenoise_model_new_default_for_rate() has one for 16000 Hz),
 * float samples in -1..1 or int16, channels interleaved. Any number of
 * samples per call. The output is the input denoised and delayed by
 * rnndenoise_get_latency() samples (1440 at 48 kHz, 480 at 16 kHz: 30 ms,
 * the built-in models reading one frame ahead): each call
 * returns exactly as many samples as it takes, the first latency samples
 * of a stream being silence. rnndenoise_drain() gives the tail.
 *
 * Nothing is allocated while processing: rnndenoise_process_float(),
 * rnndenoise_process_int16(), the setters and the getters take no lock
 * that another thread holds for long and do no I/O, so they may run in a
 * real-time audio callback. Creation, export and import allocate.
 *
 * A snapshot (rnndenoise_export_state()) holds the whole stream: hidden
 * state and DSP history, mid-frame included. Its bytes are the ones the
 * GStreamer element rnndenoise gives from its export-state action, so a
 * stream can move between the element and an application and continue
 * bit-identically (docs/state-contract.md).
 *
 * Errors are negative codes (#RnnDenoiseError); rnndenoise_strerror()
 * names a code and rnndenoise_get_error_message() gives the reason of a
 * stream's last failure.
 *
 * Example: denoise mono int16 audio at 48 kHz.
 *
 *   #include <rnndenoise.h>
 *
 *   int err;
 *   RnnDenoise *st = rnndenoise_new (NULL, 1, &err);   // embedded model
 *   int16_t buf[480];
 *
 *   if (st == NULL) {
 *     fprintf (stderr, "%s\n", rnndenoise_strerror (err));
 *     return 1;
 *   }
 *   rnndenoise_set_attenuation_limit (st, 30.0f);      // at most -30 dB
 *   while (read_samples (buf, 480) == 480) {
 *     rnndenoise_process_int16 (st, buf, buf, 480);    // in place
 *     printf ("voice %.2f\n", rnndenoise_get_vad (st));
 *     write_samples (buf, 480);
 *   }
 *   rnndenoise_free (st);
 *
 * Build with: cc app.c $(pkg-config --cflags --libs rnndenoise)
 */
#ifndef RNNDENOISE_H
#define RNNDENOISE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define RNNDENOISE_API
#elif defined(__GNUC__)
#define RNNDENOISE_API __attribute__ ((visibility ("default")))
#else
#define RNNDENOISE_API
#endif

/**
 * RnnDenoiseError:
 * @RNNDENOISE_OK: success
 * @RNNDENOISE_ERROR_INVALID_ARGUMENT: a NULL object, a channel count out of
 *   1..64 or a negative length
 * @RNNDENOISE_ERROR_MODEL: the model file is unreadable or invalid
 * @RNNDENOISE_ERROR_SNAPSHOT: a snapshot was refused (damaged, another
 *   model, another channel count); the stream is unchanged
 * @RNNDENOISE_ERROR_BUFFER_TOO_SMALL: the caller's buffer is too small
 */
typedef enum
{
  RNNDENOISE_OK = 0,
  RNNDENOISE_ERROR_INVALID_ARGUMENT = -1,
  RNNDENOISE_ERROR_MODEL = -2,
  RNNDENOISE_ERROR_SNAPSHOT = -3,
  RNNDENOISE_ERROR_BUFFER_TOO_SMALL = -4,
} RnnDenoiseError;

typedef struct RnnDenoiseModel RnnDenoiseModel;
typedef struct RnnDenoise RnnDenoise;

/* The library's version, "MAJOR.MINOR.MICRO". */
RNNDENOISE_API const char *rnndenoise_version (void);

/* A static English description of an error code. */
RNNDENOISE_API const char *rnndenoise_strerror (int error);

/* Models. @error (may be NULL) receives an #RnnDenoiseError; @message (may
 * be NULL) receives the reason of a failure, truncated to @message_size
 * bytes including the terminating NUL. Returns a new reference, or NULL. */
/* The embedded 48 kHz model. */
RNNDENOISE_API RnnDenoiseModel *rnndenoise_model_new_default (int *error);
/* The embedded model for @sample_rate: 48000 or 16000 (calls and VoIP);
 * NULL with RNNDENOISE_ERROR_MODEL for any other rate. */
RNNDENOISE_API RnnDenoiseModel *
rnndenoise_model_new_default_for_rate (int sample_rate, int *error);
RNNDENOISE_API RnnDenoiseModel *rnndenoise_model_new_from_file (const char
                                                                    *path,
    int *error, char *message, size_t message_size);
RNNDENOISE_API RnnDenoiseModel *rnndenoise_model_ref (RnnDenoiseModel *model);
/* Accepts NULL. */
RNNDENOISE_API void rnndenoise_model_unref (RnnDenoiseModel *model);
/* Samples per second per channel the model works at. */
RNNDENOISE_API int rnndenoise_model_get_sample_rate (
    const RnnDenoiseModel *model);

/* Streams. @model NULL uses the embedded default model; otherwise the
 * stream takes its own reference. @channels: 1..64, interleaved. */
RNNDENOISE_API RnnDenoise *rnndenoise_new (RnnDenoiseModel *model, int channels,
    int *error);
/* Accepts NULL. */
RNNDENOISE_API void rnndenoise_free (RnnDenoise *st);

RNNDENOISE_API int rnndenoise_get_channels (const RnnDenoise *st);
RNNDENOISE_API int rnndenoise_get_sample_rate (const RnnDenoise *st);
/* The delay between input and output, in samples per channel. */
RNNDENOISE_API int rnndenoise_get_latency (const RnnDenoise *st);
/* Samples per channel in one network frame (480 at 48 kHz). */
RNNDENOISE_API int rnndenoise_get_frame_size (const RnnDenoise *st);

/* Denoise @n_samples samples per channel: @in and @out hold
 * @n_samples x channels interleaved samples, and may be the same buffer.
 * Returns @n_samples, or a negative #RnnDenoiseError. int16 samples are
 * scaled by 1/32768 in and rounded and clamped out, as the element does. */
RNNDENOISE_API int rnndenoise_process_float (RnnDenoise *st, const float *in,
    float *out, int n_samples);
RNNDENOISE_API int rnndenoise_process_int16 (RnnDenoise *st, const int16_t *in,
    int16_t *out, int n_samples);

/* The stream's tail, as if silence followed: writes up to
 * rnndenoise_get_latency() x channels samples to @out and returns how many
 * per channel. Leaves the stream as it was (a later snapshot or process
 * call continues the stream without the tail). */
RNNDENOISE_API int rnndenoise_drain (RnnDenoise *st, float *out);

/* The voice probability (0..1) of the last completed frame, the largest
 * over the channels; 0 before the first frame. */
RNNDENOISE_API float rnndenoise_get_vad (const RnnDenoise *st);

/* Back to the state of a new stream (settings are kept). */
RNNDENOISE_API void rnndenoise_reset (RnnDenoise *st);

/* Settings; each takes effect at the next frame.
 * Attenuation limit: the largest attenuation in dB, 0 = unlimited
 * (default 0). VAD threshold: frames whose voice probability stays below
 * it are attenuated down to the limit, 0 disables the gate (default 0).
 * VAD hold: milliseconds the gate stays open after speech (default 200).
 * Speech protection, 0..2: in frames with speech each band gain g becomes
 * g (1 + p vad w (1 - g)), at most 1, w being how far the band's smoothed
 * level stands above its noise floor in tens of dB (0..2), so less of the
 * voice is taken away; 0 applies the network's gains as they are
 * (default: the one the model file names, as the element; 1 for both
 * embedded models).
 * Stationary suppression, 0..4: each band's gain is held at or below
 * sqrt (1 - s F / S), but not below 0.2, F being the band's tracked noise
 * floor and S its smoothed energy, before the speech protection: a steady
 * noise (hum, fans) is removed even where the network lets part of it
 * through; 0 is off (default 1, as the element).
 * Harmonic lift, 0..3: below 4 kHz a bin standing above its neighbours (a
 * voice harmonic) may keep more of itself than its band's gain g, up to
 * (1 + lift) g and at most 1: its noise is taken as (1 - g^2) of the mean
 * power of the 5 bins around it and it gets sqrt (1 - noise / power) where
 * that is higher than g; bins whose gain is below 0.2 are left alone.
 * Above 0 it also keeps a voice's fundamental under a steady low rumble:
 * in a frame with speech, the bins from 100 to 300 Hz get the
 * spectral-subtraction gain against 3 times their band's steady-noise
 * share (F / S) of the power around them where that is higher.
 * Never lowers a gain; after the speech protection and the VAD gate,
 * before the attenuation limit; 0 is off (default 0.5, as the element).
 * Speech hold, 0..1: in a frame the network is sure holds speech (voice
 * probability at least 0.8, the gate open), no bin's gain falls below
 * hold times its gain in the frame before, so a voice's gains fall
 * slowly (1.9 dB per 10 ms at 0.8); frames without speech keep their
 * noise reduction. Never lowers a gain; after the harmonic lift, before
 * the attenuation limit; each channel's last gains are part of the
 * snapshot; 0 is off (default 0.8, as the element's speech-hold).
 * Level normalisation, 0 or 1: 1 (the default, as the element's
 * level-normalization) lets the network hear each channel as if its loud
 * frames stood at -27 dBFS, so that quiet and loud inputs are denoised
 * alike; the output keeps the input's level, and the tracked level is
 * part of the snapshot.
 * Hum removal, 0 or 1: 1 (the default, as the element's hum-removal)
 * subtracts steady mains hum (harmonics of 50 or 60 Hz up to 1 kHz) from
 * each channel's spectrum before the network hears it, so the voice under
 * it keeps its level; the canceller follows the hum either way and its
 * state is part of the snapshot.
 * For hosts that offer these settings as controls, the tops of their
 * ranges and their defaults are the constants below (a setter refuses a
 * value outside its range). */
#define RNNDENOISE_MAX_SPEECH_PROTECTION 2.0f
#define RNNDENOISE_DEFAULT_STATIONARY_SUPPRESSION 1.0f
#define RNNDENOISE_MAX_STATIONARY_SUPPRESSION 4.0f
#define RNNDENOISE_DEFAULT_HARMONIC_LIFT 0.5f
#define RNNDENOISE_MAX_HARMONIC_LIFT 3.0f
#define RNNDENOISE_DEFAULT_SPEECH_HOLD 0.8f
#define RNNDENOISE_DEFAULT_VAD_HOLD_MS 200.0f

RNNDENOISE_API int rnndenoise_set_attenuation_limit (RnnDenoise *st, float db);
RNNDENOISE_API int rnndenoise_set_speech_protection (RnnDenoise *st,
    float amount);
RNNDENOISE_API int rnndenoise_set_stationary_suppression (RnnDenoise *st,
    float amount);
RNNDENOISE_API int rnndenoise_set_harmonic_lift (RnnDenoise *st, float lift);
RNNDENOISE_API int rnndenoise_set_speech_hold (RnnDenoise *st, float hold);
RNNDENOISE_API int rnndenoise_set_level_normalization (RnnDenoise *st,
    int enabled);
RNNDENOISE_API int rnndenoise_set_hum_removal (RnnDenoise *st, int enabled);
RNNDENOISE_API int rnndenoise_set_vad_threshold (RnnDenoise *st,
    float threshold);
RNNDENOISE_API int rnndenoise_set_vad_hold (RnnDenoise *st, float ms);

/* Snapshots. rnndenoise_export_state() with @data NULL stores the size in
 * @size; otherwise it writes the snapshot if *@size is large enough and
 * stores its size in @size. rnndenoise_import_state() validates the
 * snapshot against the stream (model, channels, layout) and applies it at
 * the next process call; a refused snapshot changes nothing. */
RNNDENOISE_API int rnndenoise_export_state (RnnDenoise *st, void *data,
    size_t *size);
RNNDENOISE_API int rnndenoise_import_state (RnnDenoise *st, const void *data,
    size_t size);

/* The reason of @st's last failed call ("" if none); valid until the next
 * call on @st. */
RNNDENOISE_API const char *rnndenoise_get_error_message (const RnnDenoise *st);

#ifdef __cplusplus
}
#endif

#endif /* RNNDENOISE_H */
