/* rnndenoise — LV2 plugins on librnndenoise, urn:rnndenoise:lv2:mono and
 * urn:rnndenoise:lv2:stereo (bundle rnndenoise.lv2: manifest.ttl,
 * rnndenoise.ttl; docs/library.md)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both plugins are one instance type parameterised by the channel count:
 * the ports are the channels' inputs, their outputs, then the same
 * controls. The stereo plugin runs one 2-channel stream, so both channels
 * share one state (as the stereo LADSPA label and the element do).
 *
 * instantiate() creates the stream and, for stereo, the interleave buffer;
 * run() reads the controls and calls rnndenoise_process_float(): no
 * allocation, no lock, no I/O.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/core/lv2.h>
#include <lv2/core/lv2_util.h>
#include <lv2/options/options.h>
#include <lv2/urid/urid.h>

#include "rnndenoise.h"

#define RNNDENOISE_LV2_MONO_URI "urn:rnndenoise:lv2:mono"
#define RNNDENOISE_LV2_STEREO_URI "urn:rnndenoise:lv2:stereo"
#define RATE 48000.0
#define MAX_CHANNELS 2
/* Frames per library call in the interleaved path when the host does not
 * give bufsz:maxBlockLength; larger host blocks are processed in steps. */
#define DEFAULT_BLOCK 1024
/* The largest interleave buffer taken from bufsz:maxBlockLength, so that a
 * host's huge bound does not make instantiate() allocate megabytes. */
#define MAX_BLOCK 16384

/* The controls, after the 2 x channels audio ports (rnndenoise.ttl). */
typedef enum
{
  CONTROL_ATTENUATION_LIMIT,
  CONTROL_VAD_THRESHOLD,
  CONTROL_VAD_HOLD,
  CONTROL_VAD,
  CONTROL_LATENCY,
  N_CONTROLS
} Control;

/* The input controls: range, value when unconnected, library setter. */
typedef struct
{
  float lo, hi, fallback;
  int (*set) (RnnDenoise *st, float value);
} Setting;

#define N_SETTINGS 3

/* clang-format off */
static const Setting settings[N_SETTINGS] = {
  [CONTROL_ATTENUATION_LIMIT] = { 0.0f, 100.0f, 0.0f, rnndenoise_set_attenuation_limit },
  [CONTROL_VAD_THRESHOLD] = { 0.0f, 1.0f, 0.0f, rnndenoise_set_vad_threshold },
  [CONTROL_VAD_HOLD] = { 0.0f, 5000.0f, 200.0f, rnndenoise_set_vad_hold },
};
/* clang-format on */

typedef struct
{
  RnnDenoise *st;    /* owned */
  uint32_t channels; /* 1 or 2 */
  const float *in[MAX_CHANNELS];
  float *out[MAX_CHANNELS];
  float *control[N_CONTROLS];
  float applied[N_SETTINGS]; /* last value given to the stream, -1 = none */
  float *interleaved;        /* owned: block x channels; stereo only */
  uint32_t block;            /* frames interleaved per library call */
} Instance;

/* bufsz:maxBlockLength from the host's options, or 0 if it gives none. */
static uint32_t
max_block_length (const LV2_Feature *const *features)
{
  const LV2_URID_Map *map = lv2_features_data (features, LV2_URID__map);
  const LV2_Options_Option *opt
      = lv2_features_data (features, LV2_OPTIONS__options);
  LV2_URID key, atom_int;
  int32_t value;

  if (map == NULL || opt == NULL)
    return 0;
  key = map->map (map->handle, LV2_BUF_SIZE__maxBlockLength);
  atom_int = map->map (map->handle, LV2_ATOM__Int);
  for (; opt->key != 0; opt++) {
    if (opt->key != key || opt->type != atom_int
        || opt->size != sizeof (int32_t))
      continue;
    value = *(const int32_t *) opt->value;
    return value > 0 ? (uint32_t) value : 0;
  }
  return 0;
}

static void
instance_free (Instance *self)
{
  rnndenoise_free (self->st);
  free (self->interleaved);
  free (self);
}

static LV2_Handle
instantiate (const LV2_Descriptor *descriptor, double rate,
    const char *bundle_path, const LV2_Feature *const *features)
{
  Instance *self;
  uint32_t i;

  (void) bundle_path;
  if (rate != RATE)
    return NULL;
  self = calloc (1, sizeof *self);
  if (self == NULL)
    return NULL;
  self->channels
      = strcmp (descriptor->URI, RNNDENOISE_LV2_STEREO_URI) == 0 ? 2 : 1;
  self->st = rnndenoise_new (NULL, (int) self->channels, NULL);
  if (self->channels > 1) {
    self->block = max_block_length (features);
    if (self->block == 0)
      self->block = DEFAULT_BLOCK;
    else if (self->block > MAX_BLOCK)
      self->block = MAX_BLOCK;
    self->interleaved = malloc (sizeof (float) * self->block * self->channels);
  }
  if (self->st == NULL || (self->channels > 1 && self->interleaved == NULL)) {
    instance_free (self);
    return NULL;
  }
  for (i = 0; i < N_SETTINGS; i++)
    self->applied[i] = -1.0f;
  return self;
}

static void
connect_port (LV2_Handle handle, uint32_t port, void *data)
{
  Instance *self = handle;
  uint32_t n = self->channels;

  if (port < n)
    self->in[port] = data;
  else if (port < 2 * n)
    self->out[port - n] = data;
  else if (port < 2 * n + N_CONTROLS)
    self->control[port - 2 * n] = data;
}

static void
activate (LV2_Handle handle)
{
  Instance *self = handle;

  rnndenoise_reset (self->st);
}

/* Gives the stream the input controls that changed since the last run. */
static void
apply_controls (Instance *self)
{
  uint32_t i;
  float v;

  for (i = 0; i < N_SETTINGS; i++) {
    v = self->control[i] != NULL ? *self->control[i] : settings[i].fallback;
    v = v < settings[i].lo ? settings[i].lo : v;
    v = v > settings[i].hi ? settings[i].hi : v;
    if (v != self->applied[i]) {
      settings[i].set (self->st, v);
      self->applied[i] = v;
    }
  }
}

/* The host's planar buffers through the interleave buffer, at most
 * self->block frames per library call. */
static void
process_interleaved (Instance *self, uint32_t n_samples)
{
  uint32_t done, n, i, c, channels = self->channels;
  float *buf = self->interleaved;

  for (done = 0; done < n_samples; done += n) {
    n = n_samples - done < self->block ? n_samples - done : self->block;
    for (i = 0; i < n; i++)
      for (c = 0; c < channels; c++)
        buf[i * channels + c] = self->in[c][done + i];
    rnndenoise_process_float (self->st, buf, buf, (int) n);
    for (i = 0; i < n; i++)
      for (c = 0; c < channels; c++)
        self->out[c][done + i] = buf[i * channels + c];
  }
}

static void
run (LV2_Handle handle, uint32_t n_samples)
{
  Instance *self = handle;

  apply_controls (self);
  /* Mono needs no interleaving: the host's buffers go straight in (the
   * library allows in == out, which LV2 hosts may pass). */
  if (self->channels == 1)
    rnndenoise_process_float (self->st, self->in[0], self->out[0],
        (int) n_samples);
  else
    process_interleaved (self, n_samples);
  if (self->control[CONTROL_VAD] != NULL)
    *self->control[CONTROL_VAD] = rnndenoise_get_vad (self->st);
  if (self->control[CONTROL_LATENCY] != NULL)
    *self->control[CONTROL_LATENCY] = (float) rnndenoise_get_latency (self->st);
}

static void
cleanup (LV2_Handle handle)
{
  instance_free (handle);
}

static const void *
extension_data (const char *uri)
{
  (void) uri;
  return NULL;
}

static const LV2_Descriptor descriptors[] = {
  { RNNDENOISE_LV2_MONO_URI, instantiate, connect_port, activate, run, NULL,
      cleanup, extension_data },
  { RNNDENOISE_LV2_STEREO_URI, instantiate, connect_port, activate, run, NULL,
      cleanup, extension_data },
};

LV2_SYMBOL_EXPORT const LV2_Descriptor *
lv2_descriptor (uint32_t index)
{
  return index < sizeof descriptors / sizeof descriptors[0]
      ? &descriptors[index]
      : NULL;
}
