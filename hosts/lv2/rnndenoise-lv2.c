/* rnndenoise — LV2 plugin on librnndenoise (bundle rnndenoise.lv2:
 * manifest.ttl, rnndenoise.ttl; docs/library.md)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * instantiate() creates the stream; run() reads the controls and calls
 * rnndenoise_process_float() on the host's buffers: no allocation, no
 * lock, no I/O.
 */
#include <stdint.h>
#include <stdlib.h>

#include <lv2/core/lv2.h>

#include "rnndenoise.h"

#define RNNDENOISE_LV2_URI "urn:rnndenoise:lv2:mono"
#define RATE 48000.0

/* The port indices of rnndenoise.ttl. */
typedef enum
{
  PORT_IN,
  PORT_OUT,
  PORT_ATTENUATION_LIMIT,
  PORT_VAD_THRESHOLD,
  PORT_VAD_HOLD,
  PORT_VAD,
  PORT_LATENCY,
  N_PORTS
} Port;

typedef struct
{
  RnnDenoise *st;
  float *port[N_PORTS];
  float attenuation_limit; /* last applied */
  float vad_threshold;     /* last applied */
  float vad_hold;          /* last applied */
} Instance;

static LV2_Handle
instantiate (const LV2_Descriptor *descriptor, double rate,
    const char *bundle_path, const LV2_Feature *const *features)
{
  Instance *self;

  (void) descriptor;
  (void) bundle_path;
  (void) features;
  if (rate != RATE)
    return NULL;
  self = calloc (1, sizeof *self);
  if (self == NULL)
    return NULL;
  self->st = rnndenoise_new (NULL, 1, NULL);
  if (self->st == NULL) {
    free (self);
    return NULL;
  }
  self->attenuation_limit = -1.0f;
  self->vad_threshold = -1.0f;
  self->vad_hold = -1.0f;
  return self;
}

static void
connect_port (LV2_Handle handle, uint32_t port, void *data)
{
  Instance *self = handle;

  if (port < N_PORTS)
    self->port[port] = data;
}

static void
activate (LV2_Handle handle)
{
  Instance *self = handle;

  rnndenoise_reset (self->st);
}

static float
control (const Instance *self, Port port, float lo, float hi, float fallback)
{
  float v = self->port[port] != NULL ? *self->port[port] : fallback;

  return v < lo ? lo : v > hi ? hi : v;
}

static void
run (LV2_Handle handle, uint32_t n_samples)
{
  Instance *self = handle;
  float limit = control (self, PORT_ATTENUATION_LIMIT, 0.0f, 100.0f, 0.0f);
  float threshold = control (self, PORT_VAD_THRESHOLD, 0.0f, 1.0f, 0.0f);
  float hold = control (self, PORT_VAD_HOLD, 0.0f, 5000.0f, 200.0f);

  if (limit != self->attenuation_limit) {
    rnndenoise_set_attenuation_limit (self->st, limit);
    self->attenuation_limit = limit;
  }
  if (threshold != self->vad_threshold) {
    rnndenoise_set_vad_threshold (self->st, threshold);
    self->vad_threshold = threshold;
  }
  if (hold != self->vad_hold) {
    rnndenoise_set_vad_hold (self->st, hold);
    self->vad_hold = hold;
  }
  rnndenoise_process_float (self->st, self->port[PORT_IN], self->port[PORT_OUT],
      (int) n_samples);
  if (self->port[PORT_VAD] != NULL)
    *self->port[PORT_VAD] = rnndenoise_get_vad (self->st);
  if (self->port[PORT_LATENCY] != NULL)
    *self->port[PORT_LATENCY] = (float) rnndenoise_get_latency (self->st);
}

static void
cleanup (LV2_Handle handle)
{
  Instance *self = handle;

  rnndenoise_free (self->st);
  free (self);
}

static const void *
extension_data (const char *uri)
{
  (void) uri;
  return NULL;
}

static const LV2_Descriptor descriptor = {
  RNNDENOISE_LV2_URI,
  instantiate,
  connect_port,
  activate,
  run,
  NULL,
  cleanup,
  extension_data,
};

LV2_SYMBOL_EXPORT const LV2_Descriptor *
lv2_descriptor (uint32_t index)
{
  return index == 0 ? &descriptor : NULL;
}
