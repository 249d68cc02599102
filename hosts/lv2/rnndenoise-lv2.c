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
 * The stream, its controls and the interleaving are host_stream.c's, shared
 * with the LADSPA plugin; this file maps the LV2 ports onto it and sizes the
 * interleave buffer from the host's bufsz:maxBlockLength. The host's rate
 * picks the built-in model (48 or 16 kHz); any other is refused.
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

#include "host_stream.h"

#define RNNDENOISE_LV2_MONO_URI "urn:rnndenoise:lv2:mono"
#define RNNDENOISE_LV2_STEREO_URI "urn:rnndenoise:lv2:stereo"
/* Frames per library call in the interleaved path when the host does not
 * give bufsz:maxBlockLength; larger host blocks are processed in steps. */
#define DEFAULT_BLOCK 1024
/* The largest interleave buffer taken from bufsz:maxBlockLength, so that a
 * host's huge bound does not make instantiate() allocate megabytes. */
#define MAX_BLOCK 16384

/* The control ports in port order, after the 2 x channels audio ports
 * (rnndenoise.ttl), onto the stream's controls: the ports added later (hum
 * removal, then the five quality controls) come after the outputs, so
 * that older ports keep their indices. */
static const HostControl port_control[HOST_N_CONTROLS] = {
  HOST_CONTROL_ATTENUATION_LIMIT,
  HOST_CONTROL_VAD_THRESHOLD,
  HOST_CONTROL_VAD_HOLD,
  HOST_CONTROL_VAD,
  HOST_CONTROL_LATENCY,
  HOST_CONTROL_HUM_REMOVAL,
  HOST_CONTROL_SPEECH_PROTECTION,
  HOST_CONTROL_STATIONARY_SUPPRESSION,
  HOST_CONTROL_HARMONIC_LIFT,
  HOST_CONTROL_SPEECH_HOLD,
  HOST_CONTROL_LEVEL_NORMALIZATION,
};

/* The VAD hold port's top (rnndenoise.ttl's lv2:maximum). */
#define VAD_HOLD_MAX_MS 5000.0f

typedef struct
{
  HostStream *stream; /* owned */
  HostPorts ports;
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

/* Frames per library call when interleaving: the host's block bound,
 * within DEFAULT_BLOCK (no bound given) and MAX_BLOCK. */
static uint32_t
interleave_block (const LV2_Feature *const *features)
{
  uint32_t block = max_block_length (features);

  if (block == 0)
    return DEFAULT_BLOCK;
  return block > MAX_BLOCK ? MAX_BLOCK : block;
}

static LV2_Handle
instantiate (const LV2_Descriptor *descriptor, double rate,
    const char *bundle_path, const LV2_Feature *const *features)
{
  Instance *self;

  (void) bundle_path;
  self = calloc (1, sizeof *self);
  if (self == NULL)
    return NULL;
  self->ports.channels
      = strcmp (descriptor->URI, RNNDENOISE_LV2_STEREO_URI) == 0 ? 2 : 1;
  /* Mono never interleaves: the block is only sized for stereo. NULL also
   * when no model runs at @rate: the host is refused. */
  self->stream = host_stream_new (rate, self->ports.channels,
      self->ports.channels > 1 ? interleave_block (features) : DEFAULT_BLOCK,
      VAD_HOLD_MAX_MS);
  if (self->stream == NULL) {
    free (self);
    return NULL;
  }
  return self;
}

static void
connect_port (LV2_Handle handle, uint32_t port, void *data)
{
  Instance *self = handle;

  host_ports_connect (&self->ports, port_control, port, data);
}

static void
activate (LV2_Handle handle)
{
  Instance *self = handle;

  host_stream_reset (self->stream);
}

static void
run (LV2_Handle handle, uint32_t n_samples)
{
  Instance *self = handle;

  host_stream_process (self->stream, &self->ports, n_samples);
}

static void
cleanup (LV2_Handle handle)
{
  Instance *self = handle;

  host_stream_free (self->stream);
  free (self);
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
