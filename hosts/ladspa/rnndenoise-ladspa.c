/* rnndenoise — LADSPA plugin on librnndenoise: labels rnndenoise_mono and
 * rnndenoise_stereo (docs/library.md)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The stream, its controls and the interleaving are host_stream.c's, shared
 * with the LV2 plugin; this file maps the LADSPA ports onto it. The host's
 * rate picks the built-in model (48 or 16 kHz); any other is refused.
 */
#include <stdlib.h>

#include <ladspa.h>

#include "host_stream.h"

/* Frames per library call in the stereo path (interleave buffer size). */
#define BLOCK 1024

/* The port layout, mono: audio in, audio out, then the controls; stereo:
 * in L, in R, out L, out R, then the same controls. Ports added since the
 * first layout (VAD hold, hum removal, then the five quality controls)
 * come last, so that the older ports keep their numbers in saved host
 * sessions. */
static const HostControl port_control[HOST_N_CONTROLS] = {
  HOST_CONTROL_ATTENUATION_LIMIT,
  HOST_CONTROL_VAD_THRESHOLD,
  HOST_CONTROL_VAD,
  HOST_CONTROL_LATENCY,
  HOST_CONTROL_VAD_HOLD,
  HOST_CONTROL_HUM_REMOVAL,
  HOST_CONTROL_SPEECH_PROTECTION,
  HOST_CONTROL_STATIONARY_SUPPRESSION,
  HOST_CONTROL_HARMONIC_LIFT,
  HOST_CONTROL_SPEECH_HOLD,
  HOST_CONTROL_LEVEL_NORMALIZATION,
};

/* LADSPA can only name a default as a fixed point of the range: the low
 * one, a quarter of the way up, gives the library's 200 ms hold with an
 * 800 ms top (the LV2 port goes to 5000 ms). */
#define VAD_HOLD_MAX_MS 800.0f

/* The same game for the quality controls, whose defaults are the
 * library's (rnndenoise.h). The harmonic lift's port stops at 2, not at
 * the library's 3, so that the low point (0.75 lo + 0.25 hi) is its 0.5;
 * the speech hold's starts at 0.2, not at 0 (off), so that the high point
 * (0.25 lo + 0.75 hi) is its 0.8: a hold of 0.2 lets a gain fall 14 dB in
 * one frame, which holds practically nothing. The speech protection's
 * middle, 1, is what both built-in models name. */
#define HARMONIC_LIFT_MAX 2.0f
#define SPEECH_HOLD_MIN 0.2f

typedef struct
{
  HostStream *stream; /* owned */
  HostPorts ports;
} Instance;

static LADSPA_Handle
instantiate (const LADSPA_Descriptor *desc, unsigned long rate)
{
  Instance *self;

  self = calloc (1, sizeof *self);
  if (self == NULL)
    return NULL;
  self->ports.channels = desc->UniqueID == 9401 ? 1 : 2;
  /* NULL also when no model runs at @rate: the host is refused. */
  self->stream = host_stream_new ((double) rate, self->ports.channels, BLOCK,
      VAD_HOLD_MAX_MS);
  if (self->stream == NULL) {
    free (self);
    return NULL;
  }
  return self;
}

static void
connect_port (LADSPA_Handle handle, unsigned long port, LADSPA_Data *data)
{
  Instance *self = handle;

  host_ports_connect (&self->ports, port_control, port, data);
}

static void
activate (LADSPA_Handle handle)
{
  Instance *self = handle;

  host_stream_reset (self->stream);
}

static void
run (LADSPA_Handle handle, unsigned long n_samples)
{
  Instance *self = handle;

  host_stream_process (self->stream, &self->ports, (unsigned) n_samples);
}

static void
cleanup (LADSPA_Handle handle)
{
  Instance *self = handle;

  host_stream_free (self->stream);
  free (self);
}

/* The hum removal and level normalization ports are integers of 0..1 with
 * default 1, not toggles (see host_stream.c). */
/* clang-format off */
#define CONTROL_NAMES \
  "Attenuation limit (dB, 0 = none)", "VAD threshold", \
  "VAD probability", "latency", \
  "VAD hold (ms)", "Hum removal (0 = off, 1 = on)", \
  "Speech protection (0..2)", "Stationary suppression (0..4)", \
  "Harmonic lift (0..2)", "Speech hold (0.2..1)", \
  "Level normalization (0 = off, 1 = on)"
static const LADSPA_PortDescriptor mono_ports[] = {
  LADSPA_PORT_INPUT | LADSPA_PORT_AUDIO,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_AUDIO,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_OUTPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
};
static const char *const mono_names[] = {
  "Input", "Output", CONTROL_NAMES,
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
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
  LADSPA_PORT_INPUT | LADSPA_PORT_CONTROL,
};
static const char *const stereo_names[] = {
  "Input L", "Input R", "Output L", "Output R", CONTROL_NAMES,
};
#define AUDIO_HINT { 0, 0.0f, 0.0f }
#define CONTROL_HINTS \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_DEFAULT_MINIMUM, 0.0f, 100.0f }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_DEFAULT_MINIMUM, 0.0f, 1.0f }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE, 0.0f, 1.0f }, \
  { 0, 0.0f, 0.0f }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_DEFAULT_LOW, 0.0f, VAD_HOLD_MAX_MS }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_INTEGER | LADSPA_HINT_DEFAULT_1, 0.0f, 1.0f }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_DEFAULT_MIDDLE, 0.0f, 2.0f }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_DEFAULT_1, 0.0f, 4.0f }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_DEFAULT_LOW, 0.0f, HARMONIC_LIFT_MAX }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_DEFAULT_HIGH, SPEECH_HOLD_MIN, 1.0f }, \
  { LADSPA_HINT_BOUNDED_BELOW | LADSPA_HINT_BOUNDED_ABOVE \
      | LADSPA_HINT_INTEGER | LADSPA_HINT_DEFAULT_1, 0.0f, 1.0f }
static const LADSPA_PortRangeHint mono_hints[] = {
  AUDIO_HINT, AUDIO_HINT, CONTROL_HINTS,
};
static const LADSPA_PortRangeHint stereo_hints[] = {
  AUDIO_HINT, AUDIO_HINT, AUDIO_HINT, AUDIO_HINT, CONTROL_HINTS,
};

#define N_PORTS(a) (sizeof a / sizeof a[0])
_Static_assert (N_PORTS (mono_names) == N_PORTS (mono_ports)
    && N_PORTS (mono_hints) == N_PORTS (mono_ports), "mono ports");
_Static_assert (N_PORTS (stereo_names) == N_PORTS (stereo_ports)
    && N_PORTS (stereo_hints) == N_PORTS (stereo_ports), "stereo ports");
_Static_assert (N_PORTS (mono_ports) == 2 + HOST_N_CONTROLS, "controls");

static const LADSPA_Descriptor descriptors[] = {
  { 9401, "rnndenoise_mono", LADSPA_PROPERTY_HARD_RT_CAPABLE,
    "rnndenoise speech denoiser (mono, 48 or 16 kHz)", "rnndenoise", "LGPL-2.1-or-later; model GPL-2.0-or-later",
    N_PORTS (mono_ports), mono_ports, mono_names, mono_hints, NULL,
    instantiate, connect_port, activate, run, NULL, NULL, NULL, cleanup },
  { 9402, "rnndenoise_stereo", LADSPA_PROPERTY_HARD_RT_CAPABLE,
    "rnndenoise speech denoiser (stereo, 48 or 16 kHz)", "rnndenoise", "LGPL-2.1-or-later; model GPL-2.0-or-later",
    N_PORTS (stereo_ports), stereo_ports, stereo_names, stereo_hints, NULL,
    instantiate, connect_port, activate, run, NULL, NULL, NULL, cleanup },
};
/* clang-format on */

__attribute__ ((visibility ("default"))) const LADSPA_Descriptor *
ladspa_descriptor (unsigned long index)
{
  return index < 2 ? &descriptors[index] : NULL;
}
