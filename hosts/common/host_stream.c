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
#include <math.h>
#include <stdlib.h>

#include "host_stream.h"

/* An input control: its range (the library's, the VAD hold's top aside),
 * its value when the host leaves the port unconnected, the library setter
 * it feeds, and whether it is a switch (0 or 1, read from any float). */
typedef struct
{
  float lo, hi, fallback;
  int (*set) (RnnDenoise *st, float value);
  int is_switch;
} HostSetting;

struct _HostStream
{
  RnnDenoise *st; /* owned */
  unsigned channels;
  float vad_hold_max_ms;                /* the VAD hold port's top */
  float applied[HOST_N_INPUT_CONTROLS]; /* last given, -1 = none */
  float *interleaved; /* owned: block x channels; stereo only */
  unsigned block;     /* frames interleaved per library call */
};

/* The setters of the hum-removal and level-normalisation ports, integers
 * of 0..1, not toggles: GStreamer's LADSPA and LV2 bridges make a toggle a
 * boolean property that starts false, whatever default the port names,
 * and so would turn them off; an integer port keeps its default of 1
 * there too. Anything from 0.5 up counts as on. */
static int
set_hum_removal (RnnDenoise *st, float on)
{
  return rnndenoise_set_hum_removal (st, on >= 0.5f);
}

static int
set_level_normalization (RnnDenoise *st, float on)
{
  return rnndenoise_set_level_normalization (st, on >= 0.5f);
}

/* The input controls, as both plugins name them, on the library's ranges
 * (rnndenoise.h): a plugin's port may stop short of them (the LADSPA
 * harmonic lift and speech hold, whose defaults must be fixed points of
 * their ranges), but a value a host sends past the port's bounds still
 * goes through when the library takes it. The VAD hold's top is the
 * plugin's (HostStream.vad_hold_max_ms), the 0 here a placeholder. The
 * speech protection falls back to NAN, which is never applied (see
 * host_stream_apply()): the stream keeps the protection its model names
 * (1 for both built-in models, the ports' default). */
/* clang-format off */
static const HostSetting settings[HOST_N_INPUT_CONTROLS] = {
  [HOST_CONTROL_ATTENUATION_LIMIT] = { 0.0f, 100.0f, 0.0f, rnndenoise_set_attenuation_limit, 0 },
  [HOST_CONTROL_VAD_THRESHOLD] = { 0.0f, 1.0f, 0.0f, rnndenoise_set_vad_threshold, 0 },
  [HOST_CONTROL_VAD_HOLD] = { 0.0f, 0.0f, RNNDENOISE_DEFAULT_VAD_HOLD_MS, rnndenoise_set_vad_hold, 0 },
  [HOST_CONTROL_HUM_REMOVAL] = { 0.0f, 1.0f, 1.0f, set_hum_removal, 1 },
  [HOST_CONTROL_SPEECH_PROTECTION] = { 0.0f, RNNDENOISE_MAX_SPEECH_PROTECTION, NAN, rnndenoise_set_speech_protection, 0 },
  [HOST_CONTROL_STATIONARY_SUPPRESSION] = { 0.0f, RNNDENOISE_MAX_STATIONARY_SUPPRESSION, RNNDENOISE_DEFAULT_STATIONARY_SUPPRESSION, rnndenoise_set_stationary_suppression, 0 },
  [HOST_CONTROL_HARMONIC_LIFT] = { 0.0f, RNNDENOISE_MAX_HARMONIC_LIFT, RNNDENOISE_DEFAULT_HARMONIC_LIFT, rnndenoise_set_harmonic_lift, 0 },
  [HOST_CONTROL_SPEECH_HOLD] = { 0.0f, 1.0f, RNNDENOISE_DEFAULT_SPEECH_HOLD, rnndenoise_set_speech_hold, 0 },
  [HOST_CONTROL_LEVEL_NORMALIZATION] = { 0.0f, 1.0f, 1.0f, set_level_normalization, 1 },
};
/* clang-format on */

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

/**
 * host_stream_new:
 * @rate: the host's sample rate in Hz; 48000 and 16000 have a model
 * @channels: 1 or 2
 * @block: frames per library call when interleaving (stereo)
 * @vad_hold_max_ms: the top of the plugin's VAD hold port
 *
 * Returns: a stream on the built-in model for @rate, or NULL (also for a
 * rate without a model, so that instantiate() refuses it).
 */
HostStream *
host_stream_new (double rate, unsigned channels, unsigned block,
    float vad_hold_max_ms)
{
  RnnDenoiseModel *model;
  HostStream *self;
  unsigned i;

  if (channels < 1 || channels > HOST_STREAM_MAX_CHANNELS || block == 0
      || !(vad_hold_max_ms > 0.0f))
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
  self->vad_hold_max_ms = vad_hold_max_ms;
  for (i = 0; i < HOST_N_INPUT_CONTROLS; i++)
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
 * clamped to their ranges (infinities too), so that no value a host sends
 * makes a setter fail; @controls holds one port pointer per input
 * control, in HostControl's order, NULL for an unconnected port (its
 * fallback value then). A NaN, which no clamp catches, leaves a switch
 * off and any other control at the value last applied (the stream's
 * default before any), as when the library was given it and refused it. */
void
host_stream_apply (HostStream *self, float *const *controls)
{
  const HostSetting *s;
  unsigned i;
  float v, hi;

  for (i = 0; i < HOST_N_INPUT_CONTROLS; i++) {
    s = &settings[i];
    hi = i == HOST_CONTROL_VAD_HOLD ? self->vad_hold_max_ms : s->hi;
    v = controls[i] != NULL ? *controls[i] : s->fallback;
    if (isnan (v)) {
      if (!s->is_switch)
        continue;
      v = s->lo;
    }
    v = v < s->lo ? s->lo : v > hi ? hi : v;
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

/* One run() of a plugin: the controls that changed, the audio, then the
 * output controls. Real-time safe, as the three calls it makes. */
void
host_stream_process (HostStream *self, const HostPorts *ports,
    unsigned n_samples)
{
  host_stream_apply (self, ports->control);
  host_stream_run (self, ports->in, ports->out, n_samples);
  host_stream_report (self, ports->control[HOST_CONTROL_VAD],
      ports->control[HOST_CONTROL_LATENCY]);
}

/* A plugin's connect_port(): @port counts the @ports->channels inputs,
 * the outputs, then the control ports, which @port_control maps, in the
 * plugin's port order, onto HostControl slots. Other ports are ignored. */
void
host_ports_connect (HostPorts *ports, const HostControl *port_control,
    unsigned long port, void *data)
{
  unsigned long n = ports->channels;

  if (port < n)
    ports->in[port] = data;
  else if (port < 2 * n)
    ports->out[port - n] = data;
  else if (port < 2 * n + HOST_N_CONTROLS)
    ports->control[port_control[port - 2 * n]] = data;
}
