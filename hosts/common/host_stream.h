/* rnndenoise — what the LADSPA and LV2 plugins share: one stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef HOST_STREAM_H
#define HOST_STREAM_H

#include "rnndenoise.h"

#define HOST_STREAM_MAX_CHANNELS 2

/* The plugins' control ports as the stream sees them: the input controls
 * first (what host_stream_apply() reads, in this order), then the output
 * controls. A plugin maps its own port numbers onto these (its ports keep
 * the order they were added in, so that saved host sessions stay valid);
 * this order is the stream's own and may grow anywhere. */
typedef enum
{
  HOST_CONTROL_ATTENUATION_LIMIT,
  HOST_CONTROL_VAD_THRESHOLD,
  HOST_CONTROL_VAD_HOLD,
  HOST_CONTROL_HUM_REMOVAL,
  HOST_CONTROL_SPEECH_PROTECTION,
  HOST_CONTROL_STATIONARY_SUPPRESSION,
  HOST_CONTROL_HARMONIC_LIFT,
  HOST_CONTROL_SPEECH_HOLD,
  HOST_CONTROL_LEVEL_NORMALIZATION,
  HOST_N_INPUT_CONTROLS,
  HOST_CONTROL_VAD = HOST_N_INPUT_CONTROLS,
  HOST_CONTROL_LATENCY,
  HOST_N_CONTROLS
} HostControl;

/* A plugin instance's ports as the host connected them (NULL: not
 * connected). The buffers are the host's. */
typedef struct
{
  unsigned channels; /* 1 or 2 */
  const float *in[HOST_STREAM_MAX_CHANNELS];
  float *out[HOST_STREAM_MAX_CHANNELS];
  float *control[HOST_N_CONTROLS];
} HostPorts;

typedef struct _HostStream HostStream;

void host_ports_connect (HostPorts *ports, const HostControl *port_control,
    unsigned long port, void *data);

HostStream *host_stream_new (double rate, unsigned channels, unsigned block,
    float vad_hold_max_ms);

void host_stream_free (HostStream *self);

void host_stream_reset (HostStream *self);

void host_stream_apply (HostStream *self, float *const *controls);

void host_stream_run (HostStream *self, const float *const *in,
    float *const *out, unsigned n_samples);

void host_stream_report (HostStream *self, float *vad, float *latency);

void host_stream_process (HostStream *self, const HostPorts *ports,
    unsigned n_samples);

#endif /* HOST_STREAM_H */
