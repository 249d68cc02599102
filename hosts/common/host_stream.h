/* rnndenoise — what the LADSPA and LV2 plugins share: one stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef HOST_STREAM_H
#define HOST_STREAM_H

#include "rnndenoise.h"

#define HOST_STREAM_MAX_CHANNELS 2
#define HOST_STREAM_MAX_SETTINGS 4

/* An input control port: its range, its value when the host leaves it
 * unconnected, and the library setter it feeds. */
typedef struct
{
  float lo, hi, fallback;
  int (*set) (RnnDenoise *st, float value);
} HostSetting;

typedef struct _HostStream HostStream;

int host_stream_set_hum_removal (RnnDenoise *st, float on);

HostStream *host_stream_new (double rate, unsigned channels, unsigned block,
    const HostSetting *settings, unsigned n_settings);

void host_stream_free (HostStream *self);

void host_stream_reset (HostStream *self);

void host_stream_apply (HostStream *self, float *const *controls);

void host_stream_run (HostStream *self, const float *const *in,
    float *const *out, unsigned n_samples);

void host_stream_report (HostStream *self, float *vad, float *latency);

#endif /* HOST_STREAM_H */
