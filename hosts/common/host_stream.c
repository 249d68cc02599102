/* rnndenoise — what the LADSPA and LV2 plugins share: one stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A plugin instance is a librnndenoise stream of 1 or 2 channels (stereo
 * is one 2-channel stream, so both channels share one state, as in the
 * element) on the built-in model for the host's rate (48 or 16 kHz), plus
 * the host's planar buffers. host_stream_new() allocates everything;
 * host_stream_apply(), _run() and _report() run in the host's real-time
 * callback: no allocation, no lock, no I/O.
 */
#include <limits.h>
#include <stdlib.h>

#include "host_stream.h"

struct _HostStream
{
  RnnDenoise *st; /* owned */
  unsigned channels;
  const HostSetting *settings; /* static, n_settings of them */
  unsigned n_settings;
  float applied[HOST_STREAM_MAX_SETTINGS]; /* last given, -1 = none */
  float *interleaved; /* owned: block x channels; stereo only */
  unsigned block;     /* frames interleaved per library call */
};

/* The built-in model for the host's @rate, or NULL if there is none. The
 * hosts give the rate as a double (LV2) or an unsigned long (LADSPA): only
 * a whole number of hertz can match, and the range check comes first so
 * that the conversion to int is defined. */
static RnnDenoiseModel *
model_for_rate (double rate)
{
  if (!(rate >= 1.0 && rate <= (double) INT_MAX) || rate != (double) (int) rate)
    return NULL;
  return rnndenoise_model_new_default_for_rate ((int) rate, NULL);
}

/* The setter of the hum-removal port, an integer of 0..1 (not a toggle,
 * whose default GStreamer's bridges ignore: see rnndenoise-ladspa.c);
 * anything from 0.5 up counts as on. */
int
host_stream_set_hum_removal (RnnDenoise *st, float on)
{
  return rnndenoise_set_hum_removal (st, on >= 0.5f);
}

/**
 * host_stream_new:
 * @rate: the host's sample rate in Hz; 48000 and 16000 have a model
 * @channels: 1 or 2
 * @block: frames per library call when interleaving (stereo)
 * @settings: the input controls, in port order (static)
 * @n_settings: how many, at most HOST_STREAM_MAX_SETTINGS
 *
 * Returns: a stream on the built-in model for @rate, or NULL (also for a
 * rate without a model, so that instantiate() refuses it).
 */
HostStream *
host_stream_new (double rate, unsigned channels, unsigned block,
    const HostSetting *settings, unsigned n_settings)
{
  RnnDenoiseModel *model;
  HostStream *self;
  unsigned i;

  if (channels < 1 || channels > HOST_STREAM_MAX_CHANNELS || block == 0
      || n_settings > HOST_STREAM_MAX_SETTINGS)
    return NULL;
  model = model_for_rate (rate);
  if (model == NULL)
    return NULL;
  self = calloc (1, sizeof *self);
  if (self == NULL) {
    rnndenoise_model_unref (model);
    return NULL;
  }
  self->channels = channels;
  self->block = block;
  self->settings = settings;
  self->n_settings = n_settings;
  for (i = 0; i < n_settings; i++)
    self->applied[i] = -1.0f;
  /* The stream holds its own reference to the model. */
  self->st = rnndenoise_new (model, (int) channels, NULL);
  rnndenoise_model_unref (model);
  if (channels > 1)
    self->interleaved = malloc (sizeof (float) * block * channels);
  if (self->st == NULL || (channels > 1 && self->interleaved == NULL)) {
    host_stream_free (self);
    return NULL;
  }
  return self;
}

void
host_stream_free (HostStream *self)
{
  if (self == NULL)
    return;
  rnndenoise_free (self->st);
  free (self->interleaved);
  free (self);
}

/* The host (re)activates the plugin: a new stream from the initial state. */
void
host_stream_reset (HostStream *self)
{
  rnndenoise_reset (self->st);
}

/* Gives the stream the input controls that changed since the last call,
 * clamped to their ranges; @controls holds one port pointer per setting,
 * NULL for an unconnected port (its fallback value then). */
void
host_stream_apply (HostStream *self, float *const *controls)
{
  const HostSetting *s;
  unsigned i;
  float v;

  for (i = 0; i < self->n_settings; i++) {
    s = &self->settings[i];
    v = controls[i] != NULL ? *controls[i] : s->fallback;
    v = v < s->lo ? s->lo : v > s->hi ? s->hi : v;
    if (v != self->applied[i]) {
      s->set (self->st, v);
      self->applied[i] = v;
    }
  }
}

/* The host's planar buffers through the interleave buffer, at most
 * self->block frames per library call. */
static void
run_interleaved (HostStream *self, const float *const *in, float *const *out,
    unsigned n_samples)
{
  unsigned done, n, i, c, channels = self->channels;
  float *buf = self->interleaved;

  for (done = 0; done < n_samples; done += n) {
    n = n_samples - done < self->block ? n_samples - done : self->block;
    for (i = 0; i < n; i++)
      for (c = 0; c < channels; c++)
        buf[i * channels + c] = in[c][done + i];
    rnndenoise_process_float (self->st, buf, buf, (int) n);
    for (i = 0; i < n; i++)
      for (c = 0; c < channels; c++)
        out[c][done + i] = buf[i * channels + c];
  }
}

/* Denoises @n_samples per channel from the host's @in to its @out buffers
 * (which a host may make the same). */
void
host_stream_run (HostStream *self, const float *const *in, float *const *out,
    unsigned n_samples)
{
  /* Mono needs no interleaving: the host's buffers go straight in (the
   * library allows in == out). */
  if (self->channels == 1)
    rnndenoise_process_float (self->st, in[0], out[0], (int) n_samples);
  else
    run_interleaved (self, in, out, n_samples);
}

/* Writes the voice probability of the last frame and the latency in
 * samples at the stream's rate (1440 at 48 kHz, 480 at 16 kHz: 30 ms, the
 * built-in models reading one frame ahead) to
 * the output control ports the host connected (NULL: not). */
void
host_stream_report (HostStream *self, float *vad, float *latency)
{
  if (vad != NULL)
    *vad = rnndenoise_get_vad (self->st);
  if (latency != NULL)
    *latency = (float) rnndenoise_get_latency (self->st);
}
