/* rnndenoise — the element's instance structs, shared by its source files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RNN_DENOISE_PRIVATE_H__
#define __GST_RNN_DENOISE_PRIVATE_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "dsp/dsp_model.h"
#include "dsp/dsp_processor.h"
#include "state/rnn_state_descriptor.h"

#include "gstrnndenoise.h"

G_BEGIN_DECLS

/*
 * Who owns what:
 *
 *   gstrnndenoise.c          the element: properties, pads, state changes,
 *                            child proxy, action signals
 *   gstrnndenoisepad.c       the sink pad class, one per stream: per-pad
 *                            properties and the stream's processor
 *   gstrnndenoisestream.c    one stream's data flow: caps, chain, events,
 *                            queries, timestamps, drain, sample I/O
 *   gstrnndenoisestatepad.c  the state pad: caps, pool, negotiation, push
 *   gstrnndenoisemessages.c  VAD/level accounting and bus messages
 *   gstrnndenoisemodel.c     the shared, lazily loaded models, one per rate
 *
 * Locking (each field below names its lock):
 *
 * - The element's OBJECT_LOCK guards its properties, its models pointer and
 *   the links between sink pads and state pads.
 * - A sink pad's OBJECT_LOCK guards its per-pad property overrides.
 * - A sink pad's `lock` (a GMutex) guards its processor pointer:
 *   application threads (export-state, import-state, reset) take it to use the
 *   processor while the streaming thread may replace it. An accepted import
 *   lives in the processor (its state slot) until the next buffer, and
 *   moves to the new processor when the caps change.
 * - The sink pad's STREAM_LOCK (held by GStreamer around chain and event
 *   calls) covers the rest of the per-pad streaming data.
 *
 * Lock order: element OBJECT_LOCK, then pad OBJECT_LOCK, then the pad's
 * `lock`; never the reverse. No lock is held while pushing, posting a
 * message or emitting a signal. The state slot inside each processor has a
 * lock of its own, taken last and briefly. The models are loaded only by
 * gst_rnn_denoise_ensure_models(), called with no lock held and never in a
 * streaming thread (READY->PAUSED and the import-state action); the
 * streaming thread only takes a reference to the loaded model of its rate
 * (gst_rnn_denoise_peek_model_for_rate()).
 */

#define DEFAULT_PAD_OVERRIDE -1.0

/* The rates of the models the element can run, in the pad templates: the
 * built-in models' (the 48 kHz one first, so that a source free to choose
 * picks it). A model at another rate is refused when it is loaded, so that
 * the templates never promise what the pads refuse. */
#define GST_RNN_DENOISE_RATES "{ 48000, 16000 }"

/* Channels per stream: the caps and the import check both use it. */
#define GST_RNN_DENOISE_MAX_CHANNELS 8

extern GstStaticPadTemplate gst_rnn_denoise_sink_template;
extern GstStaticPadTemplate gst_rnn_denoise_src_template;
extern GstStaticPadTemplate gst_rnn_denoise_state_template;

GST_DEBUG_CATEGORY_EXTERN (gst_rnn_denoise_debug);

struct _GstRnnDenoise
{
  GstElement parent;

  /* Properties; OBJECT_LOCK. */
  gchar *model_path;
  gdouble attenuation_limit;
  gdouble speech_protection;
  gdouble stationary_suppression;
  gdouble harmonic_lift;
  gdouble speech_hold;
  gboolean level_normalization;
  gboolean hum_removal;
  gdouble vad_threshold;
  GstClockTime vad_hold;
  gboolean reset_on_discont;
  gboolean post_messages;
  GstClockTime message_interval;
  gboolean low_latency; /* changes only in NULL and READY */

  /* The loaded models, one per rate: the model file's, or every one built
   * in. OBJECT_LOCK guards the pointer; the array is never changed once
   * set, only replaced, and the models are immutable and ref-counted,
   * shared by every pad's processor at their rate. */
  GPtrArray *models;     /* owned, nullable; of owned DspModel */
  guint next_sink_index; /* OBJECT_LOCK */
};

/* Settings the streaming thread copies once per buffer. @dsp's VAD hold
 * in frames is left 0: it depends on the pad's rate, and @vad_hold is
 * turned into frames where the settings are applied. */
typedef struct
{
  DspProcessorSettings dsp;
  GstClockTime vad_hold;
  gboolean reset_on_discont;
  gboolean post_messages;
  GstClockTime message_interval;
} StreamSettings;

/* Running figures for the element messages of one pad. */
typedef struct
{
  GstClockTime start;
  guint64 samples; /* output samples */
  guint64 in_samples;
  gfloat vad_max;
  gdouble vad_sum;
  guint vad_frames;
  guint gated_frames;
  gdouble in_energy;
  gdouble out_energy;
} MessageStats;

struct _GstRnnDenoisePad
{
  GstPad parent;

  /* Immutable after creation. */
  guint index;
  GstPad *srcpad; /* borrowed: the element owns it, removed
                                 * together with this pad */

  /* Element OBJECT_LOCK. */
  GstPad *statepad; /* borrowed, nullable; a request pad */

  /* Pad OBJECT_LOCK: per-pad overrides, < 0 means the element's value. */
  gdouble attenuation_limit;
  gdouble vad_threshold;

  /* lock: what application threads may read or replace mid-stream. */
  GMutex lock;
  DspProcessor *processor; /* owned, nullable before caps; it also holds
                            * an accepted import until the next buffer */

  /* STREAM_LOCK: per-pad streaming data. */
  GstAudioInfo info;
  gboolean have_info;
  gfloat *work;          /* owned; conversion buffer, grows only */
  gsize work_len;        /* floats */
  gfloat *frame_out;     /* owned; low-latency output, grows only */
  gsize frame_out_len;   /* floats */
  gboolean frame_output; /* the processor writes whole frames out
                          * (low-latency), fixed at caps */
  gfloat *tail;          /* owned; latency x channels */
  guint held;            /* samples inside the processor */
  guint surplus;         /* of those, samples that came twice after an
                         * application's import-state: dropped when they
                         * come out (held - surplus are still due) */
  GstClockTime ts_base;  /* time of input sample 0 since the reset */
  guint64 in_samples;    /* input samples since the reset */
  guint64 invocation;    /* buffers processed since the last reset */
  GstSegment segment;
  gboolean state_needs_events;   /* push stream-start/caps/segment first;
                                  * also set by request_statepad under the
                                  * element OBJECT_LOCK */
  RnnStateDescriptor state_desc; /* the state pad's format */
  gboolean state_negotiated;
  GstBufferPool *state_pool; /* owned, nullable */
  gboolean discont_pending;  /* flag the next output buffer */
  gboolean discont_carried;  /* an empty DISCONT buffer was dropped: the
                              * next buffer with samples is the
                              * discontinuity */
  gboolean warned_odd_size;
  gboolean warned_caps; /* any thread; a hint only, never reset */
  gint late_frames;     /* atomic: low-latency input that is not whole
                         * frames was seen since the caps, so the latency
                         * query answers the full latency */
  MessageStats stats;
};

/* gstrnndenoisemodel.c */
gboolean gst_rnn_denoise_ensure_models (GstRnnDenoise *self, GError **error);
DspModel *gst_rnn_denoise_peek_model_for_rate (GstRnnDenoise *self, guint rate);
GPtrArray *gst_rnn_denoise_peek_models (GstRnnDenoise *self);
gboolean gst_rnn_denoise_load_model (GstRnnDenoise *self);
GstCaps *gst_rnn_denoise_audio_caps (GstRnnDenoise *self);
GstClockTime gst_rnn_denoise_latency (GstRnnDenoise *self,
    GstRnnDenoisePad *pad);

/* gstrnndenoisepad.c */
void gst_rnn_denoise_pad_set_processor (GstRnnDenoisePad *pad,
    DspProcessor *processor);
void gst_rnn_denoise_pad_restart_counts (GstRnnDenoisePad *pad);
void gst_rnn_denoise_pad_forget_stream (GstRnnDenoisePad *pad);
void gst_rnn_denoise_pad_reset_stream (GstRnnDenoisePad *pad);
gboolean gst_rnn_denoise_pad_import (GstRnnDenoisePad *pad, GPtrArray *models,
    GBytes *bytes, GError **error);
GBytes *gst_rnn_denoise_pad_export (GstRnnDenoisePad *pad);
void gst_rnn_denoise_pad_reset_by_application (GstRnnDenoisePad *pad);

/* gstrnndenoisestream.c */
GstFlowReturn gst_rnn_denoise_chain (GstPad *sinkpad, GstObject *parent,
    GstBuffer *buf);
gboolean gst_rnn_denoise_sink_event (GstPad *sinkpad, GstObject *parent,
    GstEvent *event);
gboolean gst_rnn_denoise_sink_query (GstPad *sinkpad, GstObject *parent,
    GstQuery *query);
gboolean gst_rnn_denoise_src_query (GstPad *srcpad, GstObject *parent,
    GstQuery *query);
gboolean gst_rnn_denoise_src_event (GstPad *srcpad, GstObject *parent,
    GstEvent *event);
GstClockTime gst_rnn_denoise_samples_to_time (GstRnnDenoisePad *pad,
    guint64 samples);

/* gstrnndenoisestatepad.c */
GstPad *gst_rnn_denoise_get_statepad (GstRnnDenoise *self,
    GstRnnDenoisePad *pad);
GstBuffer *gst_rnn_denoise_statepad_acquire (GstRnnDenoisePad *pad,
    GstPad *statepad, GstMapInfo *map);
GstFlowReturn gst_rnn_denoise_statepad_push (GstRnnDenoisePad *pad,
    GstPad *statepad, GstBuffer *state_buf, GstMapInfo *map, guint frames,
    GstClockTime pts, guint n_samples, gboolean *pushed);
GstFlowReturn gst_rnn_denoise_combine_flows (GstFlowReturn audio,
    GstFlowReturn state, gboolean pushed);
void gst_rnn_denoise_statepad_push_event (GstRnnDenoise *self,
    GstRnnDenoisePad *pad, GstEvent *event);
void gst_rnn_denoise_statepad_push_eos (GstRnnDenoise *self,
    GstRnnDenoisePad *pad, GstEvent *event);
void gst_rnn_denoise_statepad_end_released (GstElement *element,
    GstPad *statepad, GstRnnDenoisePad *stream);
gboolean gst_rnn_denoise_state_event (GstPad *statepad, GstObject *parent,
    GstEvent *event);
gboolean gst_rnn_denoise_state_query (GstPad *statepad, GstObject *parent,
    GstQuery *query);

/* gstrnndenoisemessages.c */
void gst_rnn_denoise_stats_reset (MessageStats *stats);
void gst_rnn_denoise_account_buffer (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    const StreamSettings *settings, const DspProcessorReport *report,
    gdouble in_energy, guint n_in, const gfloat *out, guint n_out,
    GstClockTime out_pts);
void gst_rnn_denoise_post_stats (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    const StreamSettings *settings);
void gst_rnn_denoise_warn_about_report (GstRnnDenoise *self,
    GstRnnDenoisePad *pad, const DspProcessorReport *report);

G_END_DECLS

#endif /* __GST_RNN_DENOISE_PRIVATE_H__ */
