/* rnndenoise — LADSPA plugin on librnndenoise: labels rnndenoise_mono and
 * rnndenoise_stereo (docs/library.md)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * instantiate() creates the stream and its buffers; run() only converts
 * between the host's planar buffers and the library's interleaved ones and
 * calls rnndenoise_process_float(): no allocation, no lock, no I/O.
 */
#include <stdlib.h>
#include <string.h>

#include <ladspa.h>

#include "rnndenoise.h"

#define RATE 48000
/* Frames per library call in the stereo path (interleave buffer size). */
#define BLOCK 1024

/* The port layout, mono: audio in, audio out, then the controls; stereo:
 * in L, in R, out L, out R, then the same controls. */
enum
{
  CONTROL_ATTENUATION_LIMIT,
  CONTROL_VAD_THRESHOLD,
  CONTROL_VAD,
  CONTROL_LATENCY,
  N_CONTROLS
};

typedef struct
{
  RnnDenoise *st;
  unsigned long channels;
  LADSPA_Data *in[2];
  LADSPA_Data *out[2];
  LADSPA_Data *control[N_CONTROLS];
  float attenuation_limit; /* last applied */
  float vad_threshold;     /* last applied */
  float *interleaved;      /* BLOCK x channels; stereo only */
} Instance;

static LADSPA_Handle
instantiate (const LADSPA_Descriptor *desc, unsigned long rate)
{
  Instance *self;

  if (rate != RATE)
    return NULL;
  self = calloc (1, sizeof *self);
  if (self == NULL)
    return NULL;
  self->channels = desc->UniqueID == 9401 ? 1 : 2;
  self->st = rnndenoise_new (NULL, (int) self->channels, NULL);
  if (self->channels > 1)
    self->interleaved = malloc (sizeof (float) * BLOCK * self->channels);
  if (self->st == NULL || (self->channels > 1 && self->interleaved == NULL)) {
    rnndenoise_free (self->st);
    free (self->interleaved);
    free (self);
    return NULL;
  }
  self->attenuation_limit = -1.0f;
  self->vad_threshold = -1.0f;
  return self;
}

static void
connect_port (LADSPA_Handle handle, unsigned long port, LADSPA_Data *data)
{
  Instance *self = handle;
  unsigned long n = self->channels;

  if (port < n)
    self->in[port] = data;
  else if (port < 2 * n)
    self->out[port - n] = data;
  else if (port < 2 * n + N_CONTROLS)
    self->control[port - 2 * n] = data;
}

static void
activate (LADSPA_Handle handle)
{
  Instance *self = handle;

  rnndenoise_reset (self->st);
}

static float
clampf (float v, float lo, float hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

static void
apply_controls (Instance *self)
{
  float limit = 0.0f, threshold = 0.0f;

  if (self->control[CONTROL_ATTENUATION_LIMIT] != NULL)
    limit = clampf (*self->control[CONTROL_ATTENUATION_LIMIT], 0.0f, 100.0f);
  if (self->control[CONTROL_VAD_THRESHOLD] != NULL)
    threshold = clampf (*self->control[CONTROL_VAD_THRESHOLD], 0.0f, 1.0f);
  if (limit != self->attenuation_limit) {
    rnndenoise_set_attenuation_limit (self->st, limit);
    self->attenuation_limit = limit;
  }
  if (threshold != self->vad_threshold) {
    rnndenoise_set_vad_threshold (self->st, threshold);
    self->vad_threshold = threshold;
  }
}

static void
run_stereo (Instance *self, unsigned long n_samples)
{
  unsigned long done = 0, n, i;

  while (done < n_samples) {
    n = n_samples - done < BLOCK ? n_samples - done : BLOCK;
    for (i = 0; i < n; i++) {
      self->interleaved[2 * i] = self->in[0][done + i];
      self->interleaved[2 * i + 1] = self->in[1][done + i];
    }
    rnndenoise_process_float (self->st, self->interleaved, self->interleaved,
        (int) n);
    for (i = 0; i < n; i++) {
      self->out[0][done + i] = self->interleaved[2 * i];
      self->out[1][done + i] = self->interleaved[2 * i + 1];
    }
    done += n;
  }
}

static void
run (LADSPA_Handle handle, unsigned long n_samples)
{
  Instance *self = handle;

  apply_controls (self);
  if (self->channels == 1)
    rnndenoise_process_float (self->st, self->in[0], self->out[0],
        (int) n_samples);
  else
    run_stereo (self, n_samples);
  if (self->control[CONTROL_VAD] != NULL)
    *self->control[CONTROL_VAD] = rnndenoise_get_vad (self->st);
  if (self->control[CONTROL_LATENCY] != NULL)
    *self->control[CONTROL_LATENCY] = (float) rnndenoise_get_latency (self->st);
}

static void
cleanup (LADSPA_Handle handle)
{
  Instance *self = handle;

  rnndenoise_free (self->st);
  free (self->interleaved);
  free (self);
}

/* clang-format off */
static const LADSPA_PortDescriptor mono_ports[] = {
  LADSPA_PORT_INPUT | LADSPA_PORT_AUDIO,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_AUDIO,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_CONTROL,
};
static const char *const mono_names[] = {
  "Input", "Output",
  "Attenuation limit (dB, 0 = none)", "VAD threshold",
  "VAD probability", "latency",
};
static const LADSPA_PortDescriptor stereo_ports[] = {
  LADSPA_PORT_INPUT | LADSPA_PORT_AUDIO,
  LADSPA_PORT_INPUT | LADSPA_PORT_AUDIO,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_AUDIO,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_AUDIO,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_CONTROL,
};
static const char *const stereo_names[] = {
  "Input L", "Input R", "Output L", "Output R",
  "Attenuation limit (dB, 0 = none)", "VAD threshold",
  "VAD probability", "latency",
};
#define AUDIO_HINT { 0, 0.0f, 0.0f }
#define CONTROL_HINTS \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_DEFAULT_MINIMUM, 0.0f, 100.0f }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_DEFAULT_MINIMUM, 0.0f, 1.0f }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE, 0.0f, 1.0f }, \
  { 0, 0.0f, 0.0f }
static const LADSPA_PortRangeHint mono_hints[] = {
  AUDIO_HINT, AUDIO_HINT, CONTROL_HINTS,
};
static const LADSPA_PortRangeHint stereo_hints[] = {
  AUDIO_HINT, AUDIO_HINT, AUDIO_HINT, AUDIO_HINT, CONTROL_HINTS,
};

static const LADSPA_Descriptor descriptors[] = {
  { 9401, "rnndenoise_mono", LADSPA_PROPERTY_HARD_RT_CAPABLE,
    "rnndenoise speech denoiser (mono, 48 kHz)", "rnndenoise", "LGPL-2.1-or-later; model GPL-2.0-or-later",
    6, mono_ports, mono_names, mono_hints, NULL,
    instantiate, connect_port, activate, run, NULL, NULL, NULL, cleanup },
  { 9402, "rnndenoise_stereo", LADSPA_PROPERTY_HARD_RT_CAPABLE,
    "rnndenoise speech denoiser (stereo, 48 kHz)", "rnndenoise", "LGPL-2.1-or-later; model GPL-2.0-or-later",
    8, stereo_ports, stereo_names, stereo_hints, NULL,
    instantiate, connect_port, activate, run, NULL, NULL, NULL, cleanup },
};
/* clang-format on */

__attribute__ ((visibility ("default"))) const LADSPA_Descriptor *
ladspa_descriptor (unsigned long index)
{
  return index < 2 ? &descriptors[index] : NULL;
}
