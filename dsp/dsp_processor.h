/* rnndenoise — dsp: the per-stream frame processor
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_PROCESSOR_H
#define DSP_PROCESSOR_H

#include <glib.h>

#include "dsp/dsp_model.h"
#include "state/rnn_state_slot.h"

G_BEGIN_DECLS

/**
 * DspProcessor:
 *
 * Denoises one stream of 1..RNN_STATE_MAX_BATCH interleaved channels with a
 * shared #DspModel: one batch row per channel. Owns the stream's state slot
 * (hidden state and the whole DSP history: STFT overlap, feature memory,
 * the partial frame and, for a model that reads frames ahead, the frames it
 * delays), so a stream exported with dsp_processor_export() and imported
 * elsewhere continues bit-identically, even mid-frame.
 *
 * dsp_processor_process() and the setters belong to one thread at a time
 * (the streaming thread). dsp_processor_export(), dsp_processor_import(),
 * dsp_processor_reset(), dsp_processor_get_counters(),
 * dsp_processor_has_pending_import() and dsp_processor_get_slot() may be
 * called from any thread at any time: they go through the slot's lock.
 */
typedef struct _DspProcessor DspProcessor;

/* What dsp_processor_set_stationary_suppression() is at first: the largest
 * value measured that costs no intelligibility (docs/model.md). */
#define DSP_DEFAULT_STATIONARY_SUPPRESSION 1.0f
#define DSP_MAX_STATIONARY_SUPPRESSION 4.0f

/* What dsp_processor_set_harmonic_lift() is at first: it keeps 0.3 dB more
 * of the recorded voices at the same ΔSI-SDR (docs/model.md). */
#define DSP_DEFAULT_HARMONIC_LIFT 0.5f
#define DSP_MAX_HARMONIC_LIFT 3.0f

/* What dsp_processor_set_speech_hold() is at first: with the models'
 * speech protection at 1 it gives the same ΔSI-SDR and speech lost as
 * protection 1.25 alone, with more STOI (docs/model.md, "Holding the gains
 * within a word"). */
#define DSP_DEFAULT_SPEECH_HOLD 0.8f

/* Level normalisation and hum removal are on at first (docs/model.md). */
#define DSP_DEFAULT_LEVEL_NORMALIZATION TRUE
#define DSP_DEFAULT_HUM_REMOVAL TRUE

/* A speech protection below 0 in #DspProcessorSettings: the model's own
 * (dsp_model_get_speech_protection()). */
#define DSP_SPEECH_PROTECTION_OF_MODEL (-1.0f)

/**
 * DspProcessorSettings:
 * @attenuation_limit_db: dsp_processor_set_attenuation_limit()
 * @speech_protection: dsp_processor_set_speech_protection(); below 0
 *   (DSP_SPEECH_PROTECTION_OF_MODEL): the model's own
 * @stationary_suppression: dsp_processor_set_stationary_suppression()
 * @harmonic_lift: dsp_processor_set_harmonic_lift()
 * @speech_hold: dsp_processor_set_speech_hold()
 * @level_normalization: dsp_processor_set_level_normalization()
 * @hum_removal: dsp_processor_set_hum_removal()
 * @vad_threshold: dsp_processor_set_vad_gate()'s threshold
 * @vad_hold_frames: dsp_processor_set_vad_gate()'s hold
 *
 * Every setting of a processor, in one place: dsp_processor_settings_init()
 * gives a fresh processor's, dsp_processor_apply_settings() sets them all
 * at once and dsp_processor_get_settings() reads them back (as the setters
 * left them: clamped, the speech protection resolved), so that a stream
 * moved to another processor can take its settings along. None of them is
 * stream state: they do not travel in snapshots.
 */
typedef struct
{
  gfloat attenuation_limit_db;
  gfloat speech_protection;
  gfloat stationary_suppression;
  gfloat harmonic_lift;
  gfloat speech_hold;
  gboolean level_normalization;
  gboolean hum_removal;
  gfloat vad_threshold;
  guint vad_hold_frames;
} DspProcessorSettings;

/**
 * DspProcessorReport:
 * @frames: frames completed in the call
 * @nonfinite_samples: input samples that were NaN or infinite and were
 *   replaced by silence before reaching the network
 * @state_resets: frames after which a non-finite recurrent state was found
 *   and reset to the initial state
 * @vad_max: the largest voice probability over the call's frames and
 *   channels (of the frames synthesised: with lookahead L, frame t - L
 *   when frame t completes, 0 for the stream's first L frames), or -1 if
 *   no frame completed
 * @vad_mean: the mean voice probability, or -1 if no frame completed
 * @gated_frames: frames (over all channels) silenced by the VAD gate
 * @held: samples per channel held inside the processor after the call:
 *   the output written by the call ends @held samples before the end of
 *   its input (the latency, once the pre-roll is over; in frame-output
 *   mode the STFT delay plus the partial frame and one hop per frame the
 *   model reads ahead)
 */
typedef struct
{
  guint frames;
  guint nonfinite_samples;
  guint state_resets;
  guint gated_frames;
  gfloat vad_max;
  gfloat vad_mean;
  guint held;
} DspProcessorReport;

DspProcessor *dsp_processor_new (DspModel *model, guint channels,
    GError **error);

void dsp_processor_free (DspProcessor *self);

guint dsp_processor_get_channels (const DspProcessor *self);

DspModel *dsp_processor_get_model (const DspProcessor *self);

guint dsp_processor_get_hop (const DspProcessor *self);

guint dsp_processor_get_latency (const DspProcessor *self);

guint dsp_processor_get_model_latency (const DspModel *model);

guint dsp_processor_get_aligned_latency (const DspModel *model);

void dsp_processor_set_frame_output (DspProcessor *self, gboolean frame_output);

gboolean dsp_processor_get_frame_output (const DspProcessor *self);

RnnStateSlot *dsp_processor_get_slot (DspProcessor *self);

const RnnStateDescriptor *dsp_processor_get_state_descriptor (
    DspProcessor *self);

void dsp_processor_describe_side_output (DspProcessor *self,
    RnnStateElementType element_type, RnnStateDescriptor *desc);

void dsp_processor_get_counters (DspProcessor *self,
    RnnStateCounters *counters);

gboolean dsp_processor_has_pending_import (DspProcessor *self);

gboolean dsp_processor_take_pending_import (DspProcessor *self,
    DspProcessor *from, GError **error);

void dsp_processor_settings_init (DspProcessorSettings *settings);

void dsp_processor_apply_settings (DspProcessor *self,
    const DspProcessorSettings *settings);

void dsp_processor_get_settings (const DspProcessor *self,
    DspProcessorSettings *settings);

void dsp_processor_set_attenuation_limit (DspProcessor *self, gfloat db);

void dsp_processor_set_speech_protection (DspProcessor *self, gfloat amount);

void dsp_processor_set_stationary_suppression (DspProcessor *self,
    gfloat amount);

void dsp_processor_set_harmonic_lift (DspProcessor *self, gfloat lift);

void dsp_processor_set_speech_hold (DspProcessor *self, gfloat share);

void dsp_processor_set_level_normalization (DspProcessor *self,
    gboolean enabled);

void dsp_processor_set_hum_removal (DspProcessor *self, gboolean enabled);

void dsp_processor_set_vad_gate (DspProcessor *self, gfloat threshold,
    guint hold_frames);

guint dsp_processor_process (DspProcessor *self, const gfloat *in, gfloat *out,
    guint n_samples, const RnnStateDescriptor *side_desc, gpointer side_out,
    gsize side_out_size, DspProcessorReport *report);

gfloat dsp_processor_get_frame_vad (const DspProcessor *self, guint channel);

guint dsp_processor_drain (DspProcessor *self, gfloat *out);

void dsp_processor_reset (DspProcessor *self, gboolean drop_pending_import);

GBytes *dsp_processor_export (DspProcessor *self);

gboolean dsp_processor_import (DspProcessor *self, gconstpointer data,
    gsize size, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspProcessor, dsp_processor_free)

G_END_DECLS

#endif /* DSP_PROCESSOR_H */
