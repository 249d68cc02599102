/* rnndenoise — GStreamer element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-rnndenoise
 * @title: rnndenoise
 *
 * Removes noise from speech with a small recurrent network (GRU) run on
 * every 10 ms frame. Each request pad `sink_%u` is an independent stream
 * (1 to 8 interleaved channels, one network batch row per channel) with its
 * denoised audio on the matching `src_%u`.
 *
 * The recurrent state of each stream is owned by the element: it persists
 * from one buffer to the next, is never shared between pads, and is reset
 * only on READY→PAUSED, FLUSH_STOP, a caps change, STREAM_START, a DISCONT
 * buffer (unless #GstRnnDenoise:reset-on-discont is FALSE), a non-finite
 * state (with a warning) and the #GstRnnDenoise::reset action. Request a
 * `state_%u` pad to receive the state after every buffer that completed a
 * frame; use #GstRnnDenoise::get-state and #GstRnnDenoise::set-state to
 * export a whole stream (network state and DSP history) and continue it
 * bit-exactly in another element, pipeline or host.
 *
 * The output lags the input by 20 ms (reported in the latency query);
 * timestamps follow the input and at EOS the tail is drained, so the output
 * has exactly as many samples as the input.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=noisy.wav ! wavparse ! audioconvert ! \
 *     audioresample ! rnndenoise ! audioconvert ! wavenc ! \
 *     filesink location=clean.wav
 * ]|
 * |[
 * gst-launch-1.0 autoaudiosrc ! audioconvert ! audioresample ! \
 *     rnndenoise attenuation-limit=30 ! audioconvert ! autoaudiosink
 * ]|
 * |[
  * gst-launch-1.0 audiotestsrc num-buffers=100 ! rnndenoise name=d ! queue ! \
 *     fakesink d.state_0 ! application/x-rnn-state,format=S8 ! queue ! \
 *     filesink location=state.bin
 * ]|
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_model.h"
#include "dsp/dsp_processor.h"
#include "state/rnn_state_error.h"
#include "state/rnn_state_quant.h"
#include "state/rnn_state_snapshot.h"

#include "gstrnndenoise.h"
#include "gstrnndenoisemodel.h"

GST_DEBUG_CATEGORY_STATIC (gst_rnn_denoise_debug);
#define GST_CAT_DEFAULT gst_rnn_denoise_debug

#define DEFAULT_MODEL NULL
#define DEFAULT_ATTENUATION_LIMIT 0.0
#define DEFAULT_VAD_THRESHOLD 0.0
#define DEFAULT_VAD_HOLD 200
#define DEFAULT_RESET_ON_DISCONT TRUE
#define DEFAULT_POST_MESSAGES FALSE
#define DEFAULT_MESSAGE_INTERVAL (100 * GST_MSECOND)
#define DEFAULT_PAD_OVERRIDE -1.0

#define MAX_CHANNELS 8
#define STATE_ABS_MAX 1.0f /* GRU states are tanh-bounded */

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_ATTENUATION_LIMIT,
  PROP_VAD_THRESHOLD,
  PROP_VAD_HOLD,
  PROP_RESET_ON_DISCONT,
  PROP_POST_MESSAGES,
  PROP_MESSAGE_INTERVAL,
};

enum
{
  PROP_PAD_0,
  PROP_PAD_ATTENUATION_LIMIT,
  PROP_PAD_VAD_THRESHOLD,
  PROP_PAD_STATE_STATS,
};

enum
{
  SIGNAL_RESET,
  SIGNAL_GET_STATE,
  SIGNAL_SET_STATE,
  LAST_SIGNAL,
};

static guint gst_rnn_denoise_signals[LAST_SIGNAL];

/* clang-format off */
#define AUDIO_CAPS \
  "audio/x-raw, format = (string) { " GST_AUDIO_NE (F32) ", " \
  GST_AUDIO_NE (S16) " }, layout = (string) interleaved, " \
  "rate = (int) [ 8000, 192000 ], channels = (int) [ 1, 8 ]"
#define STATE_CAPS \
  "application/x-rnn-state, format = (string) { F32LE, S16LE, S8 }"
/* clang-format on */

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink_%u",
    GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS (AUDIO_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src_%u",
    GST_PAD_SRC, GST_PAD_SOMETIMES, GST_STATIC_CAPS (AUDIO_CAPS));
static GstStaticPadTemplate state_template
    = GST_STATIC_PAD_TEMPLATE ("state_%u", GST_PAD_SRC, GST_PAD_REQUEST,
        GST_STATIC_CAPS (STATE_CAPS));

struct _GstRnnDenoise
{
  GstElement parent;

  /* Properties; OBJECT_LOCK. */
  gchar *model_path;
  gdouble attenuation_limit;
  gdouble vad_threshold;
  guint vad_hold_ms;
  gboolean reset_on_discont;
  gboolean post_messages;
  GstClockTime message_interval;

  /* The loaded model; OBJECT_LOCK guards the pointer, the model itself is
   * immutable and ref-counted, shared by every pad's processor. */
  DspModel *model;       /* owned */
  guint next_sink_index; /* OBJECT_LOCK */
};

/* Settings the streaming thread copies once per buffer. */
typedef struct
{
  gfloat attenuation_limit;
  gfloat vad_threshold;
  guint vad_hold_frames;
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
  DspProcessor *processor; /* owned, nullable before caps */
  GBytes *pending_import;  /* owned; an accepted set-state that has not
                                 * reached the stream yet */

  /* STREAM_LOCK: per-pad streaming data. */
  GstAudioInfo info;
  gboolean have_info;
  gfloat *work;         /* owned; conversion buffer, grows only */
  gsize work_len;       /* floats */
  gfloat *tail;         /* owned; latency x channels */
  guint held;           /* samples inside the processor */
  guint surplus;        /* of those, samples that came twice after an
                         * application's set-state: dropped when they
                         * come out (held - surplus are still due) */
  GstClockTime ts_base; /* time of input sample 0 since the reset */
  guint64 in_samples;   /* input samples since the reset */
  guint64 invocation;   /* buffers processed since the last reset */
  GstSegment segment;
  gboolean state_needs_events;   /* push stream-start/caps/segment first */
  RnnStateDescriptor state_desc; /* the state pad's format */
  gboolean state_negotiated;
  GstBufferPool *state_pool; /* owned, nullable */
  gboolean discont_pending;  /* flag the next output buffer */
  gboolean discont_carried;  /* an empty DISCONT buffer was dropped: the
                              * next buffer with samples is the
                              * discontinuity */
  gboolean warned_odd_size;
  gboolean warned_caps; /* any thread; a hint only, never reset */
  MessageStats stats;
};

static void gst_rnn_denoise_child_proxy_init (gpointer g_iface,
    gpointer iface_data);

G_DEFINE_TYPE (GstRnnDenoisePad, gst_rnn_denoise_pad, GST_TYPE_PAD);

#define gst_rnn_denoise_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstRnnDenoise, gst_rnn_denoise, GST_TYPE_ELEMENT,
                         G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
                             gst_rnn_denoise_child_proxy_init);
                         GST_DEBUG_CATEGORY_INIT (gst_rnn_denoise_debug,
                             "rnndenoise", 0, "recurrent speech denoiser"));
GST_ELEMENT_REGISTER_DEFINE (rnndenoise, "rnndenoise", GST_RANK_NONE,
    GST_TYPE_RNN_DENOISE);

/* ------------------------------------------------------------------------
 * The pad class
 * ------------------------------------------------------------------------ */

static void
gst_rnn_denoise_pad_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec)
{
  GstRnnDenoisePad *pad = GST_RNN_DENOISE_PAD (object);

  GST_OBJECT_LOCK (pad);
  switch (prop_id) {
    case PROP_PAD_ATTENUATION_LIMIT:
      pad->attenuation_limit = g_value_get_double (value);
      break;
    case PROP_PAD_VAD_THRESHOLD:
      pad->vad_threshold = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (pad);
}

/* The counters of the stream's state slot, or NULL before caps. */
static GstStructure *
state_stats (GstRnnDenoisePad *pad)
{
  RnnStateCounters c;

  g_mutex_lock (&pad->lock);
  if (pad->processor == NULL) {
    g_mutex_unlock (&pad->lock);
    return NULL;
  }
  rnn_state_slot_get_counters (dsp_processor_get_slot (pad->processor), &c);
  g_mutex_unlock (&pad->lock);
  return gst_structure_new ("rnn-state-stats", "invocations", G_TYPE_UINT64,
      c.invocations, "bytes-written-back", G_TYPE_UINT64, c.bytes_written_back,
      "bytes-side-copied", G_TYPE_UINT64, c.bytes_side_copied, "copies",
      G_TYPE_UINT64, c.copies, "imports", G_TYPE_UINT64, c.imports,
      "rejected-imports", G_TYPE_UINT64, c.rejected_imports, "resets",
      G_TYPE_UINT64, c.resets, NULL);
}

static void
gst_rnn_denoise_pad_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GstRnnDenoisePad *pad = GST_RNN_DENOISE_PAD (object);

  if (prop_id == PROP_PAD_STATE_STATS) {
    g_value_take_boxed (value, state_stats (pad));
    return;
  }


  GST_OBJECT_LOCK (pad);
  switch (prop_id) {
    case PROP_PAD_ATTENUATION_LIMIT:
      g_value_set_double (value, pad->attenuation_limit);
      break;
    case PROP_PAD_VAD_THRESHOLD:
      g_value_set_double (value, pad->vad_threshold);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (pad);
}

static void
gst_rnn_denoise_pad_finalize (GObject *object)
{
  GstRnnDenoisePad *pad = GST_RNN_DENOISE_PAD (object);

  dsp_processor_free (pad->processor);
  g_clear_pointer (&pad->pending_import, g_bytes_unref);
  g_free (pad->work);
  g_free (pad->tail);
  if (pad->state_pool != NULL) {
    gst_buffer_pool_set_active (pad->state_pool, FALSE);
    gst_object_unref (pad->state_pool);
  }
  g_mutex_clear (&pad->lock);
  G_OBJECT_CLASS (gst_rnn_denoise_pad_parent_class)->finalize (object);
}

static void
gst_rnn_denoise_pad_class_init (GstRnnDenoisePadClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->set_property = gst_rnn_denoise_pad_set_property;
  gobject_class->get_property = gst_rnn_denoise_pad_get_property;
  gobject_class->finalize = gst_rnn_denoise_pad_finalize;

  /**
   * GstRnnDenoisePad:attenuation-limit:
   *
   * This stream's attenuation limit in dB; -1 uses the element's
   * #GstRnnDenoise:attenuation-limit.
   */
  g_object_class_install_property (gobject_class, PROP_PAD_ATTENUATION_LIMIT,
      g_param_spec_double ("attenuation-limit", "Attenuation limit",
          "Largest attenuation of this stream in dB (0 = unlimited, "
          "-1 = the element's value)",
          -1.0, 120.0, DEFAULT_PAD_OVERRIDE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstRnnDenoisePad:vad-threshold:
   *
   * This stream's VAD gate threshold; -1 uses the element's
   * #GstRnnDenoise:vad-threshold.
   */
  g_object_class_install_property (gobject_class, PROP_PAD_VAD_THRESHOLD,
      g_param_spec_double ("vad-threshold", "VAD threshold",
          "Voice probability below which this stream's frames are silenced "
          "(0 = no gate, -1 = the element's value)",
          -1.0, 1.0, DEFAULT_PAD_OVERRIDE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstRnnDenoisePad:state-stats:
   *
   * The counters of this stream's state slot since its caps: invocations
   * (buffers written back), bytes-written-back, bytes-side-copied (to the
   * state pad), copies (whole-state transfers), imports, rejected-imports
   * and resets. NULL before caps.
   */
  g_object_class_install_property (gobject_class, PROP_PAD_STATE_STATS,
      g_param_spec_boxed ("state-stats", "State statistics",
          "Counters of this stream's state slot", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void
gst_rnn_denoise_pad_init (GstRnnDenoisePad *pad)
{
  g_mutex_init (&pad->lock);
  pad->attenuation_limit = DEFAULT_PAD_OVERRIDE;
  pad->vad_threshold = DEFAULT_PAD_OVERRIDE;
  pad->ts_base = GST_CLOCK_TIME_NONE;
  gst_segment_init (&pad->segment, GST_FORMAT_TIME);
}

/* ------------------------------------------------------------------------
 * Model and processors
 * ------------------------------------------------------------------------ */

/* Returns a new reference to the element's model, loading it first if
 * needed: the embedded one when the model property is unset. */
static DspModel *
gst_rnn_denoise_get_model (GstRnnDenoise *self, GError **error)
{
  DspModel *model, *loaded;
  gchar *path;
  GBytes *bytes;

  GST_OBJECT_LOCK (self);
  model = self->model != NULL ? dsp_model_ref (self->model) : NULL;
  path = g_strdup (self->model_path);
  GST_OBJECT_UNLOCK (self);
  if (model != NULL) {
    g_free (path);
    return model;
  }

  if (path != NULL) {
    loaded = dsp_model_new_from_file (path, error);
  } else {
    bytes = gst_rnn_denoise_default_model_bytes ();
    loaded = dsp_model_new_from_bytes (bytes, error);
    g_bytes_unref (bytes);
  }
  if (loaded == NULL) {
    g_free (path);
    return NULL;
  }
  GST_DEBUG_OBJECT (self, "loaded model %s (id %016" G_GINT64_MODIFIER "x)",
      path != NULL ? path : "(embedded)", dsp_model_get_id (loaded));
  g_free (path);

  /* Another thread may have loaded it meanwhile: keep the first. */
  GST_OBJECT_LOCK (self);
  if (self->model == NULL)
    self->model = dsp_model_ref (loaded);
  model = dsp_model_ref (self->model);
  GST_OBJECT_UNLOCK (self);
  dsp_model_unref (loaded);
  return model;
}

/* Replaces the pad's processor; the old one is freed after the swap, so an
 * application thread that holds pad->lock never sees it freed under it. */
static void
gst_rnn_denoise_pad_set_processor (GstRnnDenoisePad *pad,
    DspProcessor *processor)
{
  DspProcessor *old;

  g_mutex_lock (&pad->lock);
  old = pad->processor;
  pad->processor = processor;
  g_mutex_unlock (&pad->lock);
  dsp_processor_free (old);
}

/* Forgets the stream: processor, pending import, timing. Called with the
 * streaming thread stopped (state change to READY, pad release). */
static void
gst_rnn_denoise_pad_forget_stream (GstRnnDenoisePad *pad)
{
  gst_rnn_denoise_pad_set_processor (pad, NULL);
  g_mutex_lock (&pad->lock);
  g_clear_pointer (&pad->pending_import, g_bytes_unref);
  g_mutex_unlock (&pad->lock);
  pad->have_info = FALSE;
  pad->held = 0;
  pad->surplus = 0;
  pad->discont_carried = FALSE;
  pad->invocation = 0;
  pad->ts_base = GST_CLOCK_TIME_NONE;
  pad->in_samples = 0;
  pad->discont_pending = TRUE;
  pad->state_negotiated = FALSE;
}

static void
stats_reset (MessageStats *stats)
{
  memset (stats, 0, sizeof (*stats));
  stats->start = GST_CLOCK_TIME_NONE;
  stats->vad_max = -1.0f;
}

/* A stream-event reset (contract point 7): the state returns to its
 * initial value; an import that has not taken effect yet is kept, so that it
 * seeds the next buffer. */
static void
gst_rnn_denoise_pad_reset_stream (GstRnnDenoisePad *pad)
{
  g_mutex_lock (&pad->lock);
  if (pad->processor != NULL)
    dsp_processor_reset (pad->processor, FALSE);
  g_mutex_unlock (&pad->lock);
  pad->held = 0;
  pad->surplus = 0;
  pad->discont_carried = FALSE;
  pad->invocation = 0;
  pad->ts_base = GST_CLOCK_TIME_NONE;
  pad->in_samples = 0;
  pad->discont_pending = TRUE;
  stats_reset (&pad->stats);
  GST_DEBUG_OBJECT (pad, "state reset");
}

static gboolean
snapshot_batch (GBytes *bytes, guint *batch, GError **error)
{
  RnnStateSnapshot *snapshot;

  snapshot = rnn_state_snapshot_parse (g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), error);
  if (snapshot == NULL)
    return FALSE;
  *batch = rnn_state_snapshot_get_descriptor (snapshot)->batch;
  rnn_state_snapshot_free (snapshot);
  return TRUE;
}

/* Called with pad->lock held. Imports @bytes into the pad's processor,
 * creating a processor for the snapshot's channel count first if the
 * stream has no caps yet (an import before the stream starts). */
static gboolean
import_unlocked (GstRnnDenoise *self, GstRnnDenoisePad *pad, GBytes *bytes,
    GError **error)
{
  DspProcessor *processor;
  DspModel *model;
  guint batch;

  if (pad->processor != NULL)
    return dsp_processor_import (pad->processor, g_bytes_get_data (bytes, NULL),
        g_bytes_get_size (bytes), error);

  if (!snapshot_batch (bytes, &batch, error))
    return FALSE;
  if (batch < 1 || batch > MAX_CHANNELS) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "batch %u, the element supports 1..%d channels", batch, MAX_CHANNELS);
    return FALSE;
  }
  model = gst_rnn_denoise_get_model (self, error);
  if (model == NULL)
    return FALSE;
  processor = dsp_processor_new (model, batch, error);
  dsp_model_unref (model);
  if (processor == NULL)
    return FALSE;
  /* The stream gets a state only if the import is accepted: a refused
   * one leaves it as it was, without a state. */
  if (!dsp_processor_import (processor, g_bytes_get_data (bytes, NULL),
          g_bytes_get_size (bytes), error)) {
    dsp_processor_free (processor);
    return FALSE;
  }
  pad->processor = processor;
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Caps
 * ------------------------------------------------------------------------ */

static GstCaps *
gst_rnn_denoise_audio_caps (GstRnnDenoise *self)
{
  GstCaps *caps = gst_static_pad_template_get_caps (&sink_template);
  DspModel *model;

  GST_OBJECT_LOCK (self);
  model = self->model != NULL ? dsp_model_ref (self->model) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (model != NULL) {
    caps = gst_caps_make_writable (caps);
    gst_caps_set_simple (caps, "rate", G_TYPE_INT,
        (gint) dsp_model_get_frame_config (model)->sample_rate, NULL);
    dsp_model_unref (model);
  }
  return caps;
}

static void
post_unsupported_caps (GstRnnDenoise *self, GstCaps *caps)
{
  GstCaps *supported = gst_rnn_denoise_audio_caps (self);
  gchar *got = gst_caps_to_string (caps);
  gchar *want = gst_caps_to_string (supported);

  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("rnndenoise cannot take this audio format. It takes %s. Put "
       "audioconvert ! audioresample in front of it.",
          want),
      ("got %s", got));
  g_free (got);
  g_free (want);
  gst_caps_unref (supported);
}

/* Upstream offers only formats we cannot take: negotiation is about to
 * fail with a bare "not-negotiated", so say what would work. A warning, not
 * an error: a caps query may only be probing. */
static void
warn_unsupported_caps_once (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    GstCaps *offered)
{
  GstCaps *supported;
  gchar *got, *want;

  if (pad->warned_caps)
    return;
  pad->warned_caps = TRUE;
  supported = gst_rnn_denoise_audio_caps (self);
  got = gst_caps_to_string (offered);
  want = gst_caps_to_string (supported);
  GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
      ("rnndenoise cannot take the audio offered to %s. It takes %s. Put "
       "audioconvert ! audioresample in front of it.",
          GST_PAD_NAME (pad), want),
      ("offered %s", got));
  g_free (got);
  g_free (want);
  gst_caps_unref (supported);
}

/* Builds the state pad's caps for the pad's processor and the format in
 * @desc: everything needed to read the buffers without the element. */
static GstCaps *
state_caps_for (const RnnStateDescriptor *desc)
{
  GString *hidden = g_string_new (NULL);
  const gchar *format;
  gchar model_id[17];
  GstCaps *caps;
  guint l;

  for (l = 0; l < desc->n_layers; l++)
    g_string_append_printf (hidden, "%s%u", l > 0 ? "," : "", desc->hidden[l]);
  g_snprintf (model_id, sizeof (model_id), "%016" G_GINT64_MODIFIER "x",
      desc->model_id);
  format = desc->element_type == RNN_STATE_ELEMENT_F32 ? "F32LE"
      : desc->element_type == RNN_STATE_ELEMENT_S16    ? "S16LE"
                                                       : "S8";
  caps = gst_caps_new_simple ("application/x-rnn-state", "format",
      G_TYPE_STRING, format, "cell", G_TYPE_STRING,
      rnn_state_cell_kind_name (desc->cell), "direction", G_TYPE_STRING,
      "forward", "layers", G_TYPE_INT, (gint) desc->n_layers, "hidden-sizes",
      G_TYPE_STRING, hidden->str, "batch", G_TYPE_INT, (gint) desc->batch,
      "scale", G_TYPE_DOUBLE, (gdouble) rnn_state_quant_step (desc, 0),
      "zero-point", G_TYPE_INT, (gint) desc->zero_point[0], "model-id",
      G_TYPE_STRING, model_id, "layout", G_TYPE_STRING, "layer-major", NULL);
  g_string_free (hidden, TRUE);
  return caps;
}

static RnnStateElementType
element_type_from_format (const gchar *format)
{
  if (g_strcmp0 (format, "S16LE") == 0)
    return RNN_STATE_ELEMENT_S16;
  if (g_strcmp0 (format, "S8") == 0)
    return RNN_STATE_ELEMENT_S8;
  return RNN_STATE_ELEMENT_F32;
}

/* The state stream belongs to its audio stream: derive its id from the
 * audio's (gst_pad_create_stream_id () refuses elements with several sink
 * pads). */
static gchar *
state_stream_id (GstRnnDenoisePad *pad)
{
  gchar *upstream = gst_pad_get_stream_id (GST_PAD (pad));
  gchar *id;

  if (upstream != NULL)
    id = g_strdup_printf ("%s/rnn-state", upstream);
  else
    id = g_strdup_printf ("rnndenoise/%s/rnn-state", GST_PAD_NAME (pad));
  g_free (upstream);
  return id;
}

/* Streaming thread. Picks the state format downstream accepts (F32LE
 * first), sets up a buffer pool of state-sized buffers and sends the
 * sticky events. Returns FALSE if the state pad cannot be used now. */
static gboolean
negotiate_state_pad (GstRnnDenoisePad *pad, GstPad *statepad)
{
  const RnnStateDescriptor *slot_desc;
  GstCaps *ours, *peer, *caps;
  GstStructure *config;
  const gchar *format;
  gchar *stream_id;

  slot_desc
      = rnn_state_slot_get_descriptor (dsp_processor_get_slot (pad->processor));
  ours = gst_static_pad_template_get_caps (&state_template);
  peer = gst_pad_peer_query_caps (statepad, ours);
  gst_caps_unref (ours);
  if (peer == NULL || gst_caps_is_empty (peer)) {
    if (peer != NULL)
      gst_caps_unref (peer);
    return FALSE;
  }
  peer = gst_caps_fixate (peer);
  format
      = gst_structure_get_string (gst_caps_get_structure (peer, 0), "format");
  pad->state_desc = *slot_desc;
  rnn_state_descriptor_set_element_type (&pad->state_desc,
      element_type_from_format (format), STATE_ABS_MAX);
  gst_caps_unref (peer);

  if (pad->state_pool != NULL) {
    gst_buffer_pool_set_active (pad->state_pool, FALSE);
    gst_object_unref (pad->state_pool);
  }
  caps = state_caps_for (&pad->state_desc);
  pad->state_pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pad->state_pool);
  gst_buffer_pool_config_set_params (config, caps,
      (guint) rnn_state_descriptor_hidden_bytes (&pad->state_desc), 2, 0);
  gst_buffer_pool_set_config (pad->state_pool, config);
  gst_buffer_pool_set_active (pad->state_pool, TRUE);

  stream_id = state_stream_id (pad);
  gst_pad_push_event (statepad, gst_event_new_stream_start (stream_id));
  g_free (stream_id);
  gst_pad_push_event (statepad, gst_event_new_caps (caps));
  gst_pad_push_event (statepad, gst_event_new_segment (&pad->segment));
  gst_caps_unref (caps);
  GST_DEBUG_OBJECT (pad, "state pad negotiated as %s",
      rnn_state_element_type_name (pad->state_desc.element_type));
  pad->state_negotiated = TRUE;
  pad->state_needs_events = FALSE;
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Streaming
 * ------------------------------------------------------------------------ */

static void
read_settings (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    StreamSettings *settings)
{
  gdouble pad_limit, pad_threshold;

  GST_OBJECT_LOCK (self);
  settings->attenuation_limit = (gfloat) self->attenuation_limit;
  settings->vad_threshold = (gfloat) self->vad_threshold;
  settings->vad_hold_frames = (self->vad_hold_ms + 9) / 10;
  settings->reset_on_discont = self->reset_on_discont;
  settings->post_messages = self->post_messages;
  settings->message_interval = self->message_interval;
  GST_OBJECT_LOCK (pad);
  pad_limit = pad->attenuation_limit;
  pad_threshold = pad->vad_threshold;
  GST_OBJECT_UNLOCK (pad);
  GST_OBJECT_UNLOCK (self);
  if (pad_limit >= 0.0)
    settings->attenuation_limit = (gfloat) pad_limit;
  if (pad_threshold >= 0.0)
    settings->vad_threshold = (gfloat) pad_threshold;
}

static GstPad *
get_statepad (GstRnnDenoise *self, GstRnnDenoisePad *pad)
{
  GstPad *statepad;

  GST_OBJECT_LOCK (self);
  statepad = pad->statepad != NULL ? gst_object_ref (pad->statepad) : NULL;
  GST_OBJECT_UNLOCK (self);
  return statepad;
}

static gfloat *
ensure_work (GstRnnDenoisePad *pad, gsize n_floats)
{
  if (pad->work_len < n_floats) {
    g_free (pad->work);
    pad->work = g_new (gfloat, n_floats);
    pad->work_len = n_floats;
  }
  return pad->work;
}

static GstClockTime
samples_to_time (GstRnnDenoisePad *pad, guint64 samples)
{
  return gst_util_uint64_scale_int (samples, GST_SECOND, pad->info.rate);
}

/* Timestamp of input sample @index counted from the last reset (negative
 * for samples of an imported stream that came before it), clipped at 0.
 * Output sample i carries the timestamp of input sample i. */
static GstClockTime
sample_time (GstRnnDenoisePad *pad, gint64 index)
{
  GstClockTime d;

  if (!GST_CLOCK_TIME_IS_VALID (pad->ts_base))
    return GST_CLOCK_TIME_NONE;
  if (index >= 0)
    return pad->ts_base + samples_to_time (pad, (guint64) index);
  d = samples_to_time (pad, (guint64) (-index));
  return pad->ts_base > d ? pad->ts_base - d : 0;
}

static gdouble
energy_of (const gfloat *x, gsize n)
{
  gdouble e = 0.0;
  gsize i;

  for (i = 0; i < n; i++)
    e += (gdouble) x[i] * x[i];
  return e;
}

static void
post_stats_message (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    const StreamSettings *settings)
{
  MessageStats *st = &pad->stats;
  gsize n = st->samples * pad->info.channels;
  gsize n_in = st->in_samples * pad->info.channels;
  gdouble in_db, out_db, vad_mean;
  GstClockTime duration = samples_to_time (pad, st->samples);
  GstStructure *s;

  in_db = 10.0 * log10 (n_in > 0 ? st->in_energy / n_in + 1e-20 : 1e-20);
  out_db = 10.0 * log10 (n > 0 ? st->out_energy / n + 1e-20 : 1e-20);
  vad_mean = st->vad_frames > 0 ? st->vad_sum / st->vad_frames : 0.0;
  s = gst_structure_new ("rnndenoise", "pad", G_TYPE_STRING, GST_PAD_NAME (pad),
      "timestamp", G_TYPE_UINT64, st->start, "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (&pad->segment, GST_FORMAT_TIME, st->start),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME, st->start),
      "duration", G_TYPE_UINT64, duration, "vad", G_TYPE_DOUBLE,
      (gdouble) MAX (st->vad_max, 0.0f), "vad-mean", G_TYPE_DOUBLE, vad_mean,
      "speech", G_TYPE_BOOLEAN,
      st->vad_max
          >= (settings->vad_threshold > 0.0f ? settings->vad_threshold : 0.5f),
      "gated-frames", G_TYPE_UINT, st->gated_frames, "input-rms-db",
      G_TYPE_DOUBLE, in_db, "output-rms-db", G_TYPE_DOUBLE, out_db, NULL);
  stats_reset (st);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Accumulates one buffer's figures; posts a message per interval. */
static void
account_buffer (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    const StreamSettings *settings, const DspProcessorReport *report,
    gdouble in_energy, guint n_in, const gfloat *out, guint n_out,
    GstClockTime out_pts)
{
  MessageStats *st = &pad->stats;

  if (!GST_CLOCK_TIME_IS_VALID (st->start))
    st->start = out_pts;
  st->samples += n_out;
  st->in_samples += n_in;
  st->in_energy += in_energy;
  st->out_energy += energy_of (out, (gsize) n_out * pad->info.channels);
  if (report->frames > 0) {
    st->vad_max = MAX (st->vad_max, report->vad_max);
    st->vad_sum += report->vad_mean * report->frames;
    st->vad_frames += report->frames;
    st->gated_frames += report->gated_frames;
  }
  if (samples_to_time (pad, st->samples) >= settings->message_interval)
    post_stats_message (self, pad, settings);
}

/* The state pad is an observer: its downstream going away (NOT_LINKED,
 * FLUSHING: its sink was shut down or the pad released; EOS: it wants no
 * more) never stops the audio, which keeps its own flow return. Only a
 * fatal error downstream of the state pad (NOT_NEGOTIATED, ERROR) stops
 * the stream, as it would for any branch of a tee. */
static GstFlowReturn
combine_flows (GstFlowReturn audio, GstFlowReturn state, gboolean pushed)
{
  if (!pushed || state == GST_FLOW_NOT_LINKED || state == GST_FLOW_FLUSHING
      || state == GST_FLOW_EOS)
    return audio;
  if (state < GST_FLOW_EOS)
    return state;
  /* Audio not linked but the state is consumed: keep streaming. */
  if (audio == GST_FLOW_NOT_LINKED)
    return state;
  return audio;
}

/* The first output buffer of a stream, and the first after a reset or a
 * jump in the input's timestamps, carries DISCONT. */
static void
mark_discont (GstRnnDenoisePad *pad, GstBuffer *buf)
{
  if (pad->discont_pending) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    pad->discont_pending = FALSE;
  }
}

/* Writes @n F32 interleaved samples into @buf in the stream's format. */
static void
write_samples (GstRnnDenoisePad *pad, GstBuffer *buf, const gfloat *samples,
    guint n)
{
  GstMapInfo map;
  gsize i, total = (gsize) n * pad->info.channels;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  if (GST_AUDIO_INFO_FORMAT (&pad->info) == GST_AUDIO_FORMAT_F32) {
    memcpy (map.data, samples, total * sizeof (gfloat));
  } else {
    gint16 *d = (gint16 *) map.data;
    for (i = 0; i < total; i++)
      d[i] = (gint16) CLAMP (lrintf (samples[i] * 32768.0f), -32768, 32767);
  }
  gst_buffer_unmap (buf, &map);
}

/* Pushes @n samples as a new buffer (used for the drained tail). */
static GstFlowReturn
push_samples (GstRnnDenoisePad *pad, const gfloat *samples, guint n,
    GstClockTime pts)
{
  GstBuffer *buf;

  if (n == 0)
    return GST_FLOW_OK;
  buf = gst_buffer_new_allocate (NULL, (gsize) n * pad->info.bpf, NULL);
  write_samples (pad, buf, samples, n);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = samples_to_time (pad, n);
  mark_discont (pad, buf);
  return gst_pad_push (pad->srcpad, buf);
}

static gboolean
is_silence (const gfloat *samples, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    if (samples[i] != 0.0f)
      return FALSE;
  return TRUE;
}

/* Pushes @n output samples in the input buffer @buf itself (it is never
 * larger than the input), so steady-state audio needs no allocation when
 * upstream lets go of its buffers. Takes ownership of @buf. */
static GstFlowReturn
push_in_input_buffer (GstRnnDenoisePad *pad, GstBuffer *buf,
    const gfloat *samples, guint n, GstClockTime pts)
{
  if (n == 0) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  if ((gsize) n * pad->info.bpf > gst_buffer_get_size (buf)) {
    /* More out than in: silence added after a mid-stream reset. */
    gst_buffer_unref (buf);
    return push_samples (pad, samples, n, pts);
  }
  buf = gst_buffer_make_writable (buf);
  gst_buffer_resize (buf, 0, (gssize) n * pad->info.bpf);
  write_samples (pad, buf, samples, n);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = samples_to_time (pad, n);
  GST_BUFFER_OFFSET (buf) = GST_BUFFER_OFFSET_NONE;
  GST_BUFFER_OFFSET_END (buf) = GST_BUFFER_OFFSET_NONE;
  GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_DISCONT);
  /* The output lags the input: a GAP buffer's output may carry the real
   * audio before it. Only silence keeps the flag. */
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)
      && !is_silence (samples, (gsize) n * pad->info.channels))
    GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_GAP);
  mark_discont (pad, buf);
  return gst_pad_push (pad->srcpad, buf);
}

/* Output timestamps count samples from the first input timestamp after a
 * reset. When the input's time jumps (a gap, or a DISCONT kept with
 * reset-on-discont=false) by more than REBASE_THRESHOLD, the count restarts
 * from the new time; smaller jitter is ignored, as audio sinks do. */
#define REBASE_THRESHOLD (40 * GST_MSECOND)

static void
follow_input_time (GstRnnDenoisePad *pad, GstClockTime in_pts)
{
  GstClockTime expected, counted;

  if (!GST_CLOCK_TIME_IS_VALID (in_pts))
    return;
  if (!GST_CLOCK_TIME_IS_VALID (pad->ts_base)) {
    if (pad->in_samples == 0)
      pad->ts_base = in_pts;
    return;
  }
  expected = sample_time (pad, (gint64) pad->in_samples);
  if (in_pts + REBASE_THRESHOLD >= expected
      && in_pts <= expected + REBASE_THRESHOLD)
    return;
  counted = samples_to_time (pad, pad->in_samples);
  GST_DEBUG_OBJECT (pad,
      "input time jumps from %" GST_TIME_FORMAT " to %" GST_TIME_FORMAT
      ": counting from there",
      GST_TIME_ARGS (expected), GST_TIME_ARGS (in_pts));
  pad->ts_base = in_pts > counted ? in_pts - counted : 0;
  pad->discont_pending = TRUE;
}

/* A reset or an import made by the application mid-stream replaces the
 * samples inside the processor: @lost samples of output (the in-flight
 * ones) will never come, or some will come twice if @lost is negative.
 * Keep one output sample per input sample so that timestamps and counts
 * stay exact: silence stands in for the lost ones; repeats are counted in
 * pad->surplus and dropped as they come out, in this call or later ones
 * (a buffer smaller than the repeats does not hold them all). @samples
 * has room for @lost more samples. */
static void
keep_sample_count (GstRnnDenoisePad *pad, gfloat *samples, guint *produced,
    gint64 lost)
{
  gsize ch = pad->info.channels;
  guint absorbed, skip;

  if (lost != 0)
    GST_DEBUG_OBJECT (pad,
        "state replaced mid-stream: %" G_GINT64_FORMAT
        " samples of silence (negative: repeats to drop), %u to drop before",
        lost, pad->surplus);
  if (lost > 0) {
    /* Samples due to be dropped anyway are among the lost ones. */
    absorbed = (guint) MIN ((guint64) lost, pad->surplus);
    pad->surplus -= absorbed;
    lost -= absorbed;
    memmove (samples + (gsize) lost * ch, samples,
        (gsize) *produced * ch * sizeof (gfloat));
    memset (samples, 0, (gsize) lost * ch * sizeof (gfloat));
    *produced += (guint) lost;
  } else if (lost < 0) {
    pad->surplus += (guint) (-lost);
  }
  skip = MIN (pad->surplus, *produced);
  if (skip > 0) {
    memmove (samples, samples + (gsize) skip * ch,
        (gsize) (*produced - skip) * ch * sizeof (gfloat));
    *produced -= skip;
    pad->surplus -= skip;
  }
}

/* Pushes the stream's tail (the samples still inside the processor) as if
 * silence followed, without changing the stream state. */
static GstFlowReturn
drain (GstRnnDenoisePad *pad)
{
  guint n;

  if (pad->processor == NULL || pad->held == 0)
    return GST_FLOW_OK;
  n = dsp_processor_drain (pad->processor, pad->tail);
  GST_DEBUG_OBJECT (pad, "drained %u samples, %u expected", n, pad->held);
  /* An application's reset or set-state since the last buffer changed what
   * the processor holds; repeats still to drop come out here. */
  if (n != pad->held || pad->surplus > 0)
    keep_sample_count (pad, pad->tail, &n, (gint64) pad->held - n);
  pad->held = 0;
  pad->surplus = 0;
  return push_samples (pad, pad->tail, n,
      sample_time (pad, (gint64) pad->in_samples - n));
}

/* Copies the input buffer, as F32, into the pad's work buffer, where the
 * processor then writes its output in place. */
static gfloat *
input_samples (GstRnnDenoisePad *pad, GstMapInfo *map, guint n)
{
  gsize i, total = (gsize) n * pad->info.channels;
  /* Room for a latency's worth more: see keep_sample_count (). */
  gfloat *work = ensure_work (pad,
      total
          + (gsize) pad->info.channels
              * dsp_processor_get_latency (pad->processor)
          + 1);

  if (GST_AUDIO_INFO_FORMAT (&pad->info) == GST_AUDIO_FORMAT_F32)
    memcpy (work, map->data, total * sizeof (gfloat));
  else
    for (i = 0; i < total; i++)
      work[i] = ((const gint16 *) map->data)[i] / 32768.0f;
  return work;
}

static void
warn_about_report (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    const DspProcessorReport *report)
{
  if (report->nonfinite_samples > 0)
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("Non-finite audio samples on %s were replaced by silence.",
            GST_PAD_NAME (pad)),
        ("%u NaN or infinite samples", report->nonfinite_samples));
  if (report->state_resets > 0)
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("The recurrent state of %s became non-finite and was reset.",
            GST_PAD_NAME (pad)),
        ("%u frames", report->state_resets));
}

/* Streaming thread. Returns a state buffer to fill (mapped in @map), or
 * NULL when no state pad is linked: an unlinked state pad costs no copy. */
static GstBuffer *
acquire_state_buffer (GstRnnDenoisePad *pad, GstPad *statepad, GstMapInfo *map)
{
  GstBuffer *state_buf = NULL;

  if (statepad == NULL || !gst_pad_is_linked (statepad))
    return NULL;
  if ((!pad->state_negotiated || pad->state_needs_events)
      && !negotiate_state_pad (pad, statepad))
    return NULL;
  if (gst_buffer_pool_acquire_buffer (pad->state_pool, &state_buf, NULL)
      != GST_FLOW_OK)
    return NULL;
  gst_buffer_map (state_buf, map, GST_MAP_WRITE);
  return state_buf;
}

/* Forgets an applied import's bytes (they were only kept in case the
 * caps change before the import reaches the stream). */
static void
clear_applied_import (GstRnnDenoisePad *pad)
{
  /* Both the test and the clearing under the lock: a set-state that lands
   * between them would otherwise lose its bytes. */
  g_mutex_lock (&pad->lock);
  if (pad->pending_import != NULL
      && !rnn_state_slot_has_pending_import (
          dsp_processor_get_slot (pad->processor)))
    g_clear_pointer (&pad->pending_import, g_bytes_unref);
  g_mutex_unlock (&pad->lock);
}

static guint
input_frames (GstRnnDenoise *self, GstRnnDenoisePad *pad, GstBuffer *buf)
{
  gsize size = gst_buffer_get_size (buf);

  if (size % pad->info.bpf != 0 && !pad->warned_odd_size) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("buffer of %" G_GSIZE_FORMAT " bytes is not a whole number of "
         "%d-byte frames; the trailing bytes are dropped",
            size, pad->info.bpf));
    pad->warned_odd_size = TRUE;
  }
  return (guint) (size / pad->info.bpf);
}

static void
apply_settings (GstRnnDenoisePad *pad, const StreamSettings *settings)
{
  dsp_processor_set_attenuation_limit (pad->processor,
      settings->attenuation_limit);
  dsp_processor_set_vad_gate (pad->processor, settings->vad_threshold,
      settings->vad_hold_frames);
}

static GstFlowReturn
gst_rnn_denoise_chain (GstPad *sinkpad, GstObject *parent, GstBuffer *buf)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (parent);
  GstRnnDenoisePad *pad = GST_RNN_DENOISE_PAD (sinkpad);
  GstFlowReturn audio_ret, state_ret = GST_FLOW_OK;
  DspProcessorReport report;
  StreamSettings settings;
  GstPad *statepad;
  GstBuffer *state_buf;
  GstMapInfo map, state_map;
  GstClockTime in_pts, out_pts;
  gdouble in_energy = 0.0;
  gboolean state_pushed = FALSE;
  gfloat *samples;
  guint n, produced, held_before;
  gint64 first_out, lost;

  if (pad->processor == NULL || !pad->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer on %s before caps", GST_PAD_NAME (pad)));
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  read_settings (self, pad, &settings);
  apply_settings (pad, &settings);

  n = input_frames (self, pad, buf);
  if (n == 0) {
    /* Dropped, and changes nothing now; a discontinuity it marks is where
     * the audio resumes, at the next buffer with samples. */
    if (GST_BUFFER_IS_DISCONT (buf))
      pad->discont_carried = TRUE;
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  if ((GST_BUFFER_IS_DISCONT (buf) || pad->discont_carried)
      && settings.reset_on_discont && (pad->invocation > 0 || pad->held > 0)) {
    GST_DEBUG_OBJECT (pad, "DISCONT: draining and resetting");
    drain (pad);
    gst_rnn_denoise_pad_reset_stream (pad);
  }
  pad->discont_carried = FALSE;
  in_pts = GST_BUFFER_PTS (buf);
  follow_input_time (pad, in_pts);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  samples = input_samples (pad, &map, n);
  gst_buffer_unmap (buf, &map);
  if (settings.post_messages)
    in_energy = energy_of (samples, (gsize) n * pad->info.channels);

  statepad = get_statepad (self, pad);
  state_buf = acquire_state_buffer (pad, statepad, &state_map);

  /* In place: output index never passes input index. */
  produced = dsp_processor_process (pad->processor, samples, samples, n,
      state_buf != NULL ? &pad->state_desc : NULL,
      state_buf != NULL ? state_map.data : NULL,
      state_buf != NULL ? state_map.size : 0, &report);
  /* Output continues where it stopped: the first sample due is input
   * sample in_samples - held. At the start of a stream an imported state
   * may bring earlier samples (negative index): they are its own. */
  held_before = pad->held;
  first_out = (gint64) pad->in_samples - (held_before - pad->surplus);
  lost = (gint64) held_before + n - produced - report.held;
  if (pad->invocation > 0 && (lost != 0 || pad->surplus > 0))
    keep_sample_count (pad, samples, &produced, lost);
  else
    first_out = (gint64) pad->in_samples + n - report.held - produced;
  pad->held = report.held;
  pad->invocation++;
  pad->in_samples += n;
  out_pts = sample_time (pad, first_out);
  warn_about_report (self, pad, &report);
  clear_applied_import (pad);
  if (settings.post_messages)
    account_buffer (self, pad, &settings, &report, in_energy, n, samples,
        produced, out_pts);

  if (state_buf != NULL) {
    gst_buffer_unmap (state_buf, &state_map);
    if (report.frames > 0) {
      /* The final state after this buffer's last frame; immutable from
       * here on: the pool hands it out again only once downstream let go. */
      GST_BUFFER_PTS (state_buf) = in_pts;
      GST_BUFFER_DURATION (state_buf) = samples_to_time (pad, n);
      GST_BUFFER_OFFSET (state_buf) = pad->invocation - 1;
      state_ret = gst_pad_push (statepad, state_buf);
      state_pushed = TRUE;
    } else {
      gst_buffer_unref (state_buf);
    }
  }
  audio_ret = push_in_input_buffer (pad, buf, samples, produced, out_pts);
  if (statepad != NULL)
    gst_object_unref (statepad);
  GST_LOG_OBJECT (pad, "%u in, %u out, %u frames, audio %s, state %s", n,
      produced, report.frames, gst_flow_get_name (audio_ret),
      gst_flow_get_name (state_ret));
  return combine_flows (audio_ret, state_ret, state_pushed);
}

/* ------------------------------------------------------------------------
 * Events and queries
 * ------------------------------------------------------------------------ */

/* Sends an event to the pad's state pad, if any (sticky events are resent
 * at negotiation, so a state pad requested late still gets them). */
static void
push_to_statepad (GstRnnDenoise *self, GstRnnDenoisePad *pad, GstEvent *event)
{
  GstPad *statepad = get_statepad (self, pad);

  if (statepad != NULL && pad->state_negotiated)
    gst_pad_push_event (statepad, gst_event_ref (event));
  if (statepad != NULL)
    gst_object_unref (statepad);
}

/* Streaming thread. EOS reaches the state pad even when no state buffer
 * was pushed (EOS before the first buffer, or before caps): the pad first
 * gets its stream-start, caps (if the stream has caps) and segment, so that
 * its downstream can finish. */
static void
eos_to_statepad (GstRnnDenoise *self, GstRnnDenoisePad *pad, GstEvent *event)
{
  GstPad *statepad = get_statepad (self, pad);
  gchar *stream_id;

  if (statepad == NULL)
    return;
  if ((!pad->state_negotiated || pad->state_needs_events)
      && gst_pad_is_linked (statepad)
      && !(pad->have_info && negotiate_state_pad (pad, statepad))) {
    stream_id = state_stream_id (pad);
    gst_pad_push_event (statepad, gst_event_new_stream_start (stream_id));
    g_free (stream_id);
    gst_pad_push_event (statepad, gst_event_new_segment (&pad->segment));
    pad->state_needs_events = FALSE;
  }
  gst_pad_push_event (statepad, gst_event_ref (event));
  gst_object_unref (statepad);
}

/* New caps: a caps change drains the old stream and starts from the
 * initial state with a new processor, re-applying an import that had not
 * reached the stream yet. */
static gboolean
handle_caps (GstRnnDenoise *self, GstRnnDenoisePad *pad, GstCaps *caps)
{
  GstCaps *supported = gst_rnn_denoise_audio_caps (self);
  DspProcessor *processor = NULL;
  GError *error = NULL;
  GstAudioInfo info;
  DspModel *model;
  gboolean ok;

  ok = gst_caps_can_intersect (caps, supported)
      && gst_audio_info_from_caps (&info, caps);
  gst_caps_unref (supported);
  if (!ok) {
    post_unsupported_caps (self, caps);
    return FALSE;
  }
  if (pad->have_info && gst_audio_info_is_equal (&info, &pad->info))
    return TRUE;

  if (pad->have_info) {
    drain (pad);
    GST_DEBUG_OBJECT (pad, "caps changed: new stream state");
  }
  model = gst_rnn_denoise_get_model (self, &error);

  g_mutex_lock (&pad->lock);
  /* An import made before the caps built a processor for its own channel
   * count: keep it if that matches. */
  if (!pad->have_info && pad->processor != NULL
      && dsp_processor_get_channels (pad->processor) == (guint) info.channels) {
    processor = pad->processor;
    pad->processor = NULL;
  } else if (model != NULL) {
    processor = dsp_processor_new (model, info.channels, &error);
  }
  g_mutex_unlock (&pad->lock);
  if (model != NULL)
    dsp_model_unref (model);
  if (processor == NULL) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, (NULL), ("%s", error->message));
    g_clear_error (&error);
    return FALSE;
  }
  gst_rnn_denoise_pad_set_processor (pad, processor);

  g_mutex_lock (&pad->lock);
  if (pad->pending_import != NULL
      && !rnn_state_slot_has_pending_import (dsp_processor_get_slot (processor))
      && !import_unlocked (self, pad, pad->pending_import, &error)) {
    g_clear_pointer (&pad->pending_import, g_bytes_unref);
  }
  g_mutex_unlock (&pad->lock);
  if (error != NULL) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("The state set on %s does not fit its new format and was dropped.",
            GST_PAD_NAME (pad)),
        ("%s", error->message));
    g_clear_error (&error);
  }

  pad->info = info;
  pad->have_info = TRUE;
  g_free (pad->tail);
  pad->tail = g_new0 (gfloat,
      (gsize) dsp_processor_get_latency (processor) * info.channels);
  pad->held = 0;
  pad->surplus = 0;
  pad->discont_carried = FALSE;
  pad->invocation = 0;
  pad->ts_base = GST_CLOCK_TIME_NONE;
  pad->in_samples = 0;
  pad->discont_pending = TRUE;
  pad->state_negotiated = FALSE;
  pad->warned_odd_size = FALSE;
  stats_reset (&pad->stats);
  GST_DEBUG_OBJECT (pad, "caps %" GST_PTR_FORMAT, caps);
  return gst_pad_push_event (pad->srcpad, gst_event_new_caps (caps));
}

static gboolean
gst_rnn_denoise_sink_event (GstPad *sinkpad, GstObject *parent, GstEvent *event)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (parent);
  GstRnnDenoisePad *pad = GST_RNN_DENOISE_PAD (sinkpad);
  GstCaps *caps;
  gboolean ret;

  GST_DEBUG_OBJECT (pad, "%" GST_PTR_FORMAT, event);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
      gst_event_parse_caps (event, &caps);
      ret = handle_caps (self, pad, caps);
      gst_event_unref (event);
      return ret;
    case GST_EVENT_STREAM_START:
      drain (pad);
      gst_rnn_denoise_pad_reset_stream (pad);
      pad->state_needs_events = TRUE;
      break;
    case GST_EVENT_SEGMENT:
      gst_event_copy_segment (event, &pad->segment);
      push_to_statepad (self, pad, event);
      break;
    case GST_EVENT_FLUSH_START:
      push_to_statepad (self, pad, event);
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_rnn_denoise_pad_reset_stream (pad);
      push_to_statepad (self, pad, event);
      break;
    case GST_EVENT_EOS:
      drain (pad);
      if (pad->stats.samples > 0) {
        StreamSettings settings;

        read_settings (self, pad, &settings);
        if (settings.post_messages)
          post_stats_message (self, pad, &settings);
      }
      eos_to_statepad (self, pad, event);
      break;
    default:
      break;
  }
  /* Everything else (GAP included) goes to this stream's source pad only,
   * never to the other streams' pads as the default handler would. */
  return gst_pad_push_event (pad->srcpad, event);
}

static gboolean
gst_rnn_denoise_sink_query (GstPad *sinkpad, GstObject *parent, GstQuery *query)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (parent);
  GstRnnDenoisePad *pad = GST_RNN_DENOISE_PAD (sinkpad);
  GstCaps *filter, *ours, *peer, *result;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      gst_query_parse_caps (query, &filter);
      ours = gst_rnn_denoise_audio_caps (self);
      peer = gst_pad_peer_query_caps (pad->srcpad, ours);
      result = filter != NULL
          ? gst_caps_intersect_full (filter, peer, GST_CAPS_INTERSECT_FIRST)
          : gst_caps_ref (peer);
      if (filter != NULL && gst_caps_is_empty (result))
        warn_unsupported_caps_once (self, pad, filter);
      gst_query_set_caps_result (query, result);
      gst_caps_unref (result);
      gst_caps_unref (peer);
      gst_caps_unref (ours);
      return TRUE;
    case GST_QUERY_ACCEPT_CAPS: {
      GstCaps *caps;
      gboolean ok;

      gst_query_parse_accept_caps (query, &caps);
      ours = gst_rnn_denoise_audio_caps (self);
      ok = gst_caps_is_subset (caps, ours);
      gst_caps_unref (ours);
      if (!ok)
        warn_unsupported_caps_once (self, pad, caps);
      gst_query_set_accept_caps_result (query, ok);
      return TRUE;
    }
    default:
      /* Allocation and the rest belong to this stream's downstream. */
      return gst_pad_peer_query (pad->srcpad, query);
  }
}

/* The algorithmic delay in time: the processor's latency at the model's
 * rate (20 ms for the embedded model). */
static GstClockTime
gst_rnn_denoise_latency (GstRnnDenoise *self)
{
  const DspFrameConfig *cfg;
  GstClockTime latency;
  DspModel *model;

  model = gst_rnn_denoise_get_model (self, NULL);
  if (model == NULL)
    return 0;
  cfg = dsp_model_get_frame_config (model);
  /* STFT delay (window - hop) plus one hop of frame buffering. */
  latency
      = gst_util_uint64_scale_int (cfg->window, GST_SECOND, cfg->sample_rate);
  dsp_model_unref (model);
  return latency;
}

static gboolean
gst_rnn_denoise_src_query (GstPad *srcpad, GstObject *parent, GstQuery *query)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (parent);
  GstRnnDenoisePad *pad = gst_pad_get_element_private (srcpad);
  GstClockTime min, max, ours;
  gboolean live;
  GstCaps *filter, *caps, *peer, *result;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:
      if (!gst_pad_peer_query (GST_PAD (pad), query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      ours = gst_rnn_denoise_latency (self);
      GST_DEBUG_OBJECT (srcpad, "adding %" GST_TIME_FORMAT " of latency",
          GST_TIME_ARGS (ours));
      gst_query_set_latency (query, live, min + ours,
          GST_CLOCK_TIME_IS_VALID (max) ? max + ours : GST_CLOCK_TIME_NONE);
      return TRUE;
    case GST_QUERY_CAPS:
      gst_query_parse_caps (query, &filter);
      caps = gst_rnn_denoise_audio_caps (self);
      peer = gst_pad_peer_query_caps (GST_PAD (pad), caps);
      result = filter != NULL
          ? gst_caps_intersect_full (filter, peer, GST_CAPS_INTERSECT_FIRST)
          : gst_caps_ref (peer);
      gst_query_set_caps_result (query, result);
      gst_caps_unref (result);
      gst_caps_unref (peer);
      gst_caps_unref (caps);
      return TRUE;
    default:
      return gst_pad_peer_query (GST_PAD (pad), query);
  }
}

static gboolean
gst_rnn_denoise_src_event (GstPad *srcpad, GstObject *parent, GstEvent *event)
{
  GstRnnDenoisePad *pad = gst_pad_get_element_private (srcpad);

  (void) parent;
  return gst_pad_push_event (GST_PAD (pad), event);
}

/* The stream a state pad belongs to, or NULL (a state pad requested
 * before its stream, or whose stream was released). Returns a new
 * reference. */
static GstPad *
statepad_stream (GstRnnDenoise *self, GstPad *statepad)
{
  GstRnnDenoisePad *sinkpad;

  GST_OBJECT_LOCK (self);
  sinkpad = gst_pad_get_element_private (statepad);
  if (sinkpad != NULL)
    gst_object_ref (sinkpad);
  GST_OBJECT_UNLOCK (self);
  return sinkpad != NULL ? GST_PAD (sinkpad) : NULL;
}

/* An upstream event on state_N (a seek, a custom event from the state's
 * consumer) goes to stream N's upstream only, never to the other streams
 * as the default handler would send it; dropped when the state pad has no
 * stream. */
static gboolean
gst_rnn_denoise_state_event (GstPad *statepad, GstObject *parent,
    GstEvent *event)
{
  GstPad *sinkpad = statepad_stream (GST_RNN_DENOISE (parent), statepad);
  gboolean ret = FALSE;

  if (sinkpad != NULL) {
    ret = gst_pad_push_event (sinkpad, event);
    gst_object_unref (sinkpad);
  } else {
    GST_DEBUG_OBJECT (statepad, "no stream: dropping %" GST_PTR_FORMAT, event);
    gst_event_unref (event);
  }
  return ret;
}

/* Caps queries are the state pad's own; any other query goes to stream
 * N's upstream only (FALSE when the state pad has no stream). */
static gboolean
gst_rnn_denoise_state_query (GstPad *statepad, GstObject *parent,
    GstQuery *query)
{
  GstPad *sinkpad;
  gboolean ret;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
    case GST_QUERY_ACCEPT_CAPS:
      return gst_pad_query_default (statepad, parent, query);
    default:
      break;
  }
  sinkpad = statepad_stream (GST_RNN_DENOISE (parent), statepad);
  if (sinkpad == NULL)
    return FALSE;
  ret = gst_pad_peer_query (sinkpad, query);
  gst_object_unref (sinkpad);
  return ret;
}

/* ------------------------------------------------------------------------
 * Pads
 * ------------------------------------------------------------------------ */

static GstRnnDenoisePad *
find_sinkpad_unlocked (GstRnnDenoise *self, guint index)
{
  GList *l;

  for (l = GST_ELEMENT (self)->sinkpads; l != NULL; l = l->next)
    if (GST_RNN_DENOISE_PAD (l->data)->index == index)
      return GST_RNN_DENOISE_PAD (l->data);
  return NULL;
}

static GstPad *
find_statepad_unlocked (GstRnnDenoise *self, guint index)
{
  gchar *name = g_strdup_printf ("state_%u", index);
  GstPad *found = NULL;
  GList *l;

  for (l = GST_ELEMENT (self)->srcpads; l != NULL; l = l->next)
    if (g_strcmp0 (GST_PAD_NAME (l->data), name) == 0)
      found = GST_PAD (l->data);
  g_free (name);
  return found;
}

static gboolean
parse_index (const gchar *name, const gchar *prefix, guint *index)
{
  guint64 v;
  gchar *end = NULL;

  if (name == NULL || !g_str_has_prefix (name, prefix))
    return FALSE;
  v = g_ascii_strtoull (name + strlen (prefix), &end, 10);
  if (end == name + strlen (prefix) || *end != '\0' || v > G_MAXINT)
    return FALSE;
  *index = (guint) v;
  return TRUE;
}

static GstPad *
request_sinkpad (GstRnnDenoise *self, GstPadTemplate *templ,
    const gchar *req_name)
{
  GstRnnDenoisePad *pad;
  GstPad *srcpad;
  gchar *name;
  guint index;

  GST_OBJECT_LOCK (self);
  if (req_name != NULL && parse_index (req_name, "sink_", &index)) {
    if (find_sinkpad_unlocked (self, index) != NULL) {
      GST_OBJECT_UNLOCK (self);
      GST_WARNING_OBJECT (self, "pad %s already exists", req_name);
      return NULL;
    }
  } else {
    index = self->next_sink_index;
    while (find_sinkpad_unlocked (self, index) != NULL)
      index++;
  }
  self->next_sink_index = MAX (self->next_sink_index, index + 1);
  GST_OBJECT_UNLOCK (self);

  name = g_strdup_printf ("sink_%u", index);
  pad = g_object_new (GST_TYPE_RNN_DENOISE_PAD, "name", name, "direction",
      GST_PAD_SINK, "template", templ, NULL);
  g_free (name);
  pad->index = index;
  gst_pad_set_chain_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_chain));
  gst_pad_set_event_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_sink_event));
  gst_pad_set_query_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_sink_query));

  name = g_strdup_printf ("src_%u", index);
  srcpad = gst_pad_new_from_static_template (&src_template, name);
  g_free (name);
  gst_pad_set_element_private (srcpad, pad);
  gst_pad_set_query_function (srcpad,
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_src_query));
  gst_pad_set_event_function (srcpad,
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_src_event));
  gst_pad_use_fixed_caps (srcpad);
  pad->srcpad = srcpad;

  GST_OBJECT_LOCK (self);
  pad->statepad = find_statepad_unlocked (self, index);
  if (pad->statepad != NULL)
    gst_pad_set_element_private (pad->statepad, pad);
  GST_OBJECT_UNLOCK (self);

  /* Activate before adding when the element already runs. */
  if (GST_STATE (self) > GST_STATE_READY) {
    gst_pad_set_active (srcpad, TRUE);
    gst_pad_set_active (GST_PAD (pad), TRUE);
  }
  gst_element_add_pad (GST_ELEMENT (self), srcpad);
  gst_element_add_pad (GST_ELEMENT (self), GST_PAD (pad));
  gst_child_proxy_child_added (GST_CHILD_PROXY (self), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  GST_DEBUG_OBJECT (self, "added %s and %s", GST_PAD_NAME (pad),
      GST_PAD_NAME (srcpad));
  return GST_PAD (pad);
}

static GstPad *
request_statepad (GstRnnDenoise *self, GstPadTemplate *templ,
    const gchar *req_name)
{
  GstRnnDenoisePad *sinkpad;
  GstPad *statepad;
  guint index = 0;
  gchar *name;

  GST_OBJECT_LOCK (self);
  if (req_name == NULL || !parse_index (req_name, "state_", &index)) {
    /* No name: the state of the first stream without one. */
    GList *l;
    gboolean found = FALSE;

    for (l = GST_ELEMENT (self)->sinkpads; l != NULL && !found; l = l->next) {
      GstRnnDenoisePad *p = GST_RNN_DENOISE_PAD (l->data);
      if (p->statepad == NULL) {
        index = p->index;
        found = TRUE;
      }
    }
  }
  if (find_statepad_unlocked (self, index) != NULL) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "state pad for stream %u already exists", index);
    return NULL;
  }
  GST_OBJECT_UNLOCK (self);

  name = g_strdup_printf ("state_%u", index);
  statepad = gst_pad_new_from_template (templ, name);
  g_free (name);

  gst_pad_use_fixed_caps (statepad);
  gst_pad_set_event_function (statepad,
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_state_event));
  gst_pad_set_query_function (statepad,
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_state_query));

  GST_OBJECT_LOCK (self);
  sinkpad = find_sinkpad_unlocked (self, index);
  if (sinkpad != NULL) {
    sinkpad->statepad = statepad;
    /* Read by the streaming thread at its next buffer. */
    sinkpad->state_needs_events = TRUE;
  }
  gst_pad_set_element_private (statepad, sinkpad);
  GST_OBJECT_UNLOCK (self);

  if (GST_STATE (self) > GST_STATE_READY)
    gst_pad_set_active (statepad, TRUE);
  gst_element_add_pad (GST_ELEMENT (self), statepad);
  GST_DEBUG_OBJECT (self, "added %s", GST_PAD_NAME (statepad));
  return statepad;
}

static GstPad *
gst_rnn_denoise_request_new_pad (GstElement *element, GstPadTemplate *templ,
    const gchar *req_name, const GstCaps *caps)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (element);

  (void) caps;
  if (templ
      == gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (element),
          "state_%u"))
    return request_statepad (self, templ, req_name);
  return request_sinkpad (self, templ, req_name);
}

static void
release_statepad (GstRnnDenoise *self, GstPad *statepad)
{
  GstRnnDenoisePad *sinkpad;

  gst_pad_set_active (statepad, FALSE);
  GST_OBJECT_LOCK (self);
  sinkpad = gst_pad_get_element_private (statepad);
  if (sinkpad != NULL && sinkpad->statepad == statepad)
    sinkpad->statepad = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_element_remove_pad (GST_ELEMENT (self), statepad);
}

static void
gst_rnn_denoise_release_pad (GstElement *element, GstPad *pad)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (element);
  GstRnnDenoisePad *sinkpad;
  GstPad *srcpad;

  GST_DEBUG_OBJECT (self, "releasing %s", GST_PAD_NAME (pad));
  if (!GST_IS_RNN_DENOISE_PAD (pad)) {
    release_statepad (self, pad);
    return;
  }
  sinkpad = GST_RNN_DENOISE_PAD (pad);
  /* Waits for the streaming thread to leave the pad's functions. */
  gst_pad_set_active (pad, FALSE);
  srcpad = sinkpad->srcpad;
  gst_pad_set_active (srcpad, FALSE);

  GST_OBJECT_LOCK (self);
  if (sinkpad->statepad != NULL)
    gst_pad_set_element_private (sinkpad->statepad, NULL);
  sinkpad->statepad = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_rnn_denoise_pad_forget_stream (sinkpad);

  gst_child_proxy_child_removed (GST_CHILD_PROXY (self), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  gst_element_remove_pad (element, srcpad);
  gst_element_remove_pad (element, pad);
}

/* ------------------------------------------------------------------------
 * Action signals
 * ------------------------------------------------------------------------ */

/* Finds the stream a pad name designates: "sink_N", "src_N" or
 * "state_N". Returns a new reference or NULL. */
static GstRnnDenoisePad *
lookup_stream (GstRnnDenoise *self, const gchar *name)
{
  GstRnnDenoisePad *pad = NULL;
  guint index;

  if (!parse_index (name, "sink_", &index)
      && !parse_index (name, "src_", &index)
      && !parse_index (name, "state_", &index))
    return NULL;
  GST_OBJECT_LOCK (self);
  pad = find_sinkpad_unlocked (self, index);
  if (pad != NULL)
    gst_object_ref (pad);
  GST_OBJECT_UNLOCK (self);
  return pad;
}

static void
reset_by_application (GstRnnDenoisePad *pad)
{
  /* An application's reset also forgets a state set but not yet used. */
  g_mutex_lock (&pad->lock);
  if (pad->processor != NULL)
    dsp_processor_reset (pad->processor, TRUE);
  g_clear_pointer (&pad->pending_import, g_bytes_unref);
  g_mutex_unlock (&pad->lock);
  GST_DEBUG_OBJECT (pad, "reset by the application");
}

static void for_each_stream (GstRnnDenoise *self,
    void (*func) (GstRnnDenoisePad *));

static gboolean
gst_rnn_denoise_reset_action (GstRnnDenoise *self, const gchar *pad_name)
{
  GstRnnDenoisePad *pad;

  if (pad_name == NULL) {
    for_each_stream (self, reset_by_application);
    return TRUE;
  }
  pad = lookup_stream (self, pad_name);
  if (pad == NULL) {
    GST_WARNING_OBJECT (self, "reset: no stream called \"%s\"", pad_name);
    return FALSE;
  }
  reset_by_application (pad);
  gst_object_unref (pad);
  return TRUE;
}

static GBytes *
gst_rnn_denoise_get_state_action (GstRnnDenoise *self, const gchar *pad_name)
{
  GstRnnDenoisePad *pad = lookup_stream (self, pad_name);
  GBytes *bytes = NULL;

  if (pad == NULL) {
    GST_WARNING_OBJECT (self, "get-state: no stream called \"%s\"",
        GST_STR_NULL (pad_name));
    return NULL;
  }
  g_mutex_lock (&pad->lock);
  if (pad->processor != NULL)
    bytes = dsp_processor_export (pad->processor);
  g_mutex_unlock (&pad->lock);
  if (bytes == NULL)
    GST_DEBUG_OBJECT (pad, "get-state: no state yet (no caps)");
  gst_object_unref (pad);
  return bytes;
}

static gboolean
gst_rnn_denoise_set_state_action (GstRnnDenoise *self, const gchar *pad_name,
    GBytes *bytes)
{
  GstRnnDenoisePad *pad = lookup_stream (self, pad_name);
  GError *error = NULL;
  gboolean ok;

  if (pad == NULL) {
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("set-state refused: no stream called \"%s\".",
            GST_STR_NULL (pad_name)),
        (NULL));
    return FALSE;
  }
  if (bytes == NULL) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("set-state refused for %s: no state given.", GST_PAD_NAME (pad)),
        (NULL));
    gst_object_unref (pad);
    return FALSE;
  }
  g_mutex_lock (&pad->lock);
  ok = import_unlocked (self, pad, bytes, &error);
  if (ok) {
    g_clear_pointer (&pad->pending_import, g_bytes_unref);
    pad->pending_import = g_bytes_ref (bytes);
  }
  g_mutex_unlock (&pad->lock);
  if (!ok) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("set-state refused for %s: %s", GST_PAD_NAME (pad), error->message),
        ("%s", error->message));
    g_clear_error (&error);
  } else {
    GST_DEBUG_OBJECT (pad, "state accepted; applies at the next buffer");
  }
  gst_object_unref (pad);
  return ok;
}

/* ------------------------------------------------------------------------
 * State changes
 * ------------------------------------------------------------------------ */

static gboolean
load_model_for_playback (GstRnnDenoise *self)
{
  GError *error = NULL;
  DspModel *model = gst_rnn_denoise_get_model (self, &error);
  gchar *path;

  if (model != NULL) {
    dsp_model_unref (model);
    return TRUE;
  }
  GST_OBJECT_LOCK (self);
  path = g_strdup (self->model_path);
  GST_OBJECT_UNLOCK (self);
  if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Model file \"%s\" not found.", path), ("%s", error->message));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Could not load the model \"%s\".",
            path != NULL ? path : "(embedded)"),
        ("%s", error->message));
  g_free (path);
  g_clear_error (&error);
  return FALSE;
}

static void
for_each_stream (GstRnnDenoise *self, void (*func) (GstRnnDenoisePad *))
{
  GList *pads = NULL, *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l != NULL; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (self);
  for (l = pads; l != NULL; l = l->next)
    func (l->data);
  g_list_free_full (pads, gst_object_unref);
}

static GstStateChangeReturn
gst_rnn_denoise_change_state (GstElement *element, GstStateChange transition)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    if (!load_model_for_playback (self))
      return GST_STATE_CHANGE_FAILURE;
    for_each_stream (self, gst_rnn_denoise_pad_reset_stream);
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE)
    return ret;
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    for_each_stream (self, gst_rnn_denoise_pad_forget_stream);
  return ret;
}

/* ------------------------------------------------------------------------
 * Properties
 * ------------------------------------------------------------------------ */

static void
set_model_path (GstRnnDenoise *self, const gchar *path)
{
  DspModel *old = NULL;

  GST_OBJECT_LOCK (self);
  if (GST_STATE (self) > GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self,
        "the model can only change in NULL or READY; "
        "keeping %s",
        GST_STR_NULL (self->model_path));
    return;
  }
  if (g_strcmp0 (path, self->model_path) != 0) {
    g_free (self->model_path);
    self->model_path = g_strdup (path);
    old = self->model;
    self->model = NULL;
  }
  GST_OBJECT_UNLOCK (self);
  if (old != NULL) {
    dsp_model_unref (old);
    /* Processors made by set-state in READY belong to the old model. */
    for_each_stream (self, gst_rnn_denoise_pad_forget_stream);
  }
}

static void
gst_rnn_denoise_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (object);

  if (prop_id == PROP_MODEL) {
    set_model_path (self, g_value_get_string (value));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ATTENUATION_LIMIT:
      self->attenuation_limit = g_value_get_double (value);
      break;
    case PROP_VAD_THRESHOLD:
      self->vad_threshold = g_value_get_double (value);
      break;
    case PROP_VAD_HOLD:
      self->vad_hold_ms = g_value_get_uint (value);
      break;
    case PROP_RESET_ON_DISCONT:
      self->reset_on_discont = g_value_get_boolean (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_MESSAGE_INTERVAL:
      self->message_interval = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rnn_denoise_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL:
      g_value_set_string (value, self->model_path);
      break;
    case PROP_ATTENUATION_LIMIT:
      g_value_set_double (value, self->attenuation_limit);
      break;
    case PROP_VAD_THRESHOLD:
      g_value_set_double (value, self->vad_threshold);
      break;
    case PROP_VAD_HOLD:
      g_value_set_uint (value, self->vad_hold_ms);
      break;
    case PROP_RESET_ON_DISCONT:
      g_value_set_boolean (value, self->reset_on_discont);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_MESSAGE_INTERVAL:
      g_value_set_uint64 (value, self->message_interval);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ------------------------------------------------------------------------
 * GstChildProxy: the sink pads, for per-pad properties
 * ------------------------------------------------------------------------ */

static GObject *
gst_rnn_denoise_child_proxy_get_child_by_index (GstChildProxy *proxy,
    guint index)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (proxy);
  GObject *obj = NULL;

  GST_OBJECT_LOCK (self);
  obj = g_list_nth_data (GST_ELEMENT (self)->sinkpads, index);
  if (obj != NULL)
    gst_object_ref (obj);
  GST_OBJECT_UNLOCK (self);
  return obj;
}

static guint
gst_rnn_denoise_child_proxy_get_children_count (GstChildProxy *proxy)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (proxy);
  guint count;

  GST_OBJECT_LOCK (self);
  count = GST_ELEMENT (self)->numsinkpads;
  GST_OBJECT_UNLOCK (self);
  return count;
}

static void
gst_rnn_denoise_child_proxy_init (gpointer g_iface, gpointer iface_data)
{
  GstChildProxyInterface *iface = g_iface;

  (void) iface_data;
  iface->get_child_by_index = gst_rnn_denoise_child_proxy_get_child_by_index;
  iface->get_children_count = gst_rnn_denoise_child_proxy_get_children_count;
}

/* ------------------------------------------------------------------------
 * Class
 * ------------------------------------------------------------------------ */

static GstPad *
first_statepad_unlocked (GstElement *element)
{
  GList *l;

  for (l = element->srcpads; l != NULL; l = l->next)
    if (g_str_has_prefix (GST_PAD_NAME (l->data), "state_"))
      return gst_object_ref (l->data);
  return NULL;
}

static void
gst_rnn_denoise_dispose (GObject *object)
{
  GstElement *element = GST_ELEMENT (object);
  GstPad *pad;

  /* Release the request pads still there: state pads, then streams (whose
   * source pads go with them). */
  for (;;) {
    GST_OBJECT_LOCK (element);
    pad = first_statepad_unlocked (element);
    if (pad == NULL && element->sinkpads != NULL)
      pad = gst_object_ref (element->sinkpads->data);
    GST_OBJECT_UNLOCK (element);
    if (pad == NULL)
      break;
    gst_element_release_request_pad (element, pad);
    gst_object_unref (pad);
  }
  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_rnn_denoise_finalize (GObject *object)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (object);

  g_free (self->model_path);
  g_clear_pointer (&self->model, dsp_model_unref);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
install_properties (GObjectClass *gobject_class)
{
  /**
   * GstRnnDenoise:model:
   *
   * A model file (see docs/model-format.md); unset uses the model built
   * into the plugin. Loaded on the READY→PAUSED change, which fails with
   * the loader's reason if the file is missing or invalid.
   */
  g_object_class_install_property (gobject_class, PROP_MODEL,
      g_param_spec_string ("model", "Model",
          "Model file to load (unset = the model built into the plugin)",
          DEFAULT_MODEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  /**
   * GstRnnDenoise:attenuation-limit:
   *
   * The largest attenuation, in dB, applied to any frequency band: noise is
   * lowered by at most this much. 0 means no limit.
   */
  g_object_class_install_property (gobject_class, PROP_ATTENUATION_LIMIT,
      g_param_spec_double ("attenuation-limit", "Attenuation limit",
          "Largest attenuation in dB (0 = unlimited)", 0.0, 120.0,
          DEFAULT_ATTENUATION_LIMIT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstRnnDenoise:vad-threshold:
   *
   * Voice probability (0..1) below which a frame is silenced, down to the
   * attenuation limit, once #GstRnnDenoise:vad-hold has run out since the
   * last voiced frame. 0 disables the gate.
   */
  g_object_class_install_property (gobject_class, PROP_VAD_THRESHOLD,
      g_param_spec_double ("vad-threshold", "VAD threshold",
          "Voice probability below which frames are silenced (0 = no gate)",
          0.0, 1.0, DEFAULT_VAD_THRESHOLD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstRnnDenoise:vad-hold:
   *
   * How long, in milliseconds, the VAD gate stays open after the last
   * voiced frame, so that word endings are not clipped.
   */
  g_object_class_install_property (gobject_class, PROP_VAD_HOLD,
      g_param_spec_uint ("vad-hold", "VAD hold",
          "Time the VAD gate stays open after voice, in ms", 0, 10000,
          DEFAULT_VAD_HOLD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstRnnDenoise:reset-on-discont:
   *
   * Whether a buffer flagged DISCONT drains the stream and resets its state
   * (the audio before and after a discontinuity are unrelated).
   */
  g_object_class_install_property (gobject_class, PROP_RESET_ON_DISCONT,
      g_param_spec_boolean ("reset-on-discont", "Reset on discont",
          "Reset the stream state at a DISCONT buffer",
          DEFAULT_RESET_ON_DISCONT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstRnnDenoise:post-messages:
   *
   * Post an element message named "rnndenoise" on the bus every
   * #GstRnnDenoise:message-interval of each stream, with the fields pad,
   * timestamp, stream-time, running-time, duration, vad (largest voice
   * probability), vad-mean, speech, gated-frames, input-rms-db and
   * output-rms-db.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post VAD and level messages on the bus", DEFAULT_POST_MESSAGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstRnnDenoise:message-interval:
   *
   * Audio time covered by each element message, in nanoseconds.
   */
  g_object_class_install_property (gobject_class, PROP_MESSAGE_INTERVAL,
      g_param_spec_uint64 ("message-interval", "Message interval",
          "Interval of the element messages in ns", 10 * GST_MSECOND,
          G_MAXUINT64, DEFAULT_MESSAGE_INTERVAL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
}

static void
install_signals (GstRnnDenoiseClass *klass)
{
  /**
   * GstRnnDenoise::reset:
   * @rnndenoise: the element
   * @pad_name: (nullable): a stream's pad name ("sink_0", "src_0" or
   *   "state_0"), or NULL for every stream
   *
   * Resets the stream's state to its initial value and forgets a state set
   * with #GstRnnDenoise::set-state that has not been used yet. Safe from any
   * thread; a buffer being processed completes first.
   *
   * Returns: FALSE if no such stream exists.
   */
  gst_rnn_denoise_signals[SIGNAL_RESET] = g_signal_new_class_handler ("reset",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_rnn_denoise_reset_action), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_STRING);

  /**
   * GstRnnDenoise::get-state:
   * @rnndenoise: the element
   * @pad_name: a stream's pad name ("sink_0", "src_0" or "state_0")
   *
   * Exports the whole stream: the network's recurrent state and the DSP
   * history, as it is after the last completed buffer (never a torn mix).
   * The bytes are the snapshot format of docs/state-contract.md. Safe from
   * any thread.
   *
   * Returns: (transfer full) (nullable): the snapshot, or NULL if the stream
   * does not exist or has no caps yet.
   */
  gst_rnn_denoise_signals[SIGNAL_GET_STATE]
      = g_signal_new_class_handler ("get-state", G_TYPE_FROM_CLASS (klass),
          G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
          G_CALLBACK (gst_rnn_denoise_get_state_action), NULL, NULL, NULL,
          G_TYPE_BYTES, 1, G_TYPE_STRING);

  /**
   * GstRnnDenoise::set-state:
   * @rnndenoise: the element
   * @pad_name: a stream's pad name ("sink_0", "src_0" or "state_0")
   * @state: a snapshot from #GstRnnDenoise::get-state
   *
   * Imports a stream. The snapshot is checked against the stream: format
   * version, model id, cell kind, direction, channels, layers, hidden sizes
   * and history; a refused one posts a warning naming the field and leaves
   * the state untouched. An accepted one takes effect at the start of the
   * next buffer, after any reset caused by the events before it: set in
   * READY or PAUSED, it seeds the first buffer of the stream. Safe from any
   * thread.
   *
   * Returns: TRUE if the state was accepted.
   */
  gst_rnn_denoise_signals[SIGNAL_SET_STATE]
      = g_signal_new_class_handler ("set-state", G_TYPE_FROM_CLASS (klass),
          G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
          G_CALLBACK (gst_rnn_denoise_set_state_action), NULL, NULL, NULL,
          G_TYPE_BOOLEAN, 2, G_TYPE_STRING, G_TYPE_BYTES);
}

static void
gst_rnn_denoise_class_init (GstRnnDenoiseClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_rnn_denoise_set_property;
  gobject_class->get_property = gst_rnn_denoise_get_property;
  gobject_class->dispose = gst_rnn_denoise_dispose;
  gobject_class->finalize = gst_rnn_denoise_finalize;
  install_properties (gobject_class);
  install_signals (klass);

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_template, GST_TYPE_RNN_DENOISE_PAD);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_add_static_pad_template (element_class, &state_template);
  gst_element_class_set_static_metadata (element_class,
      "Recurrent speech denoiser", "Filter/Effect/Audio",
      "Removes noise from speech with a GRU network whose per-stream state "
      "is persisted, published, exported and imported",
      "rnndenoise developers");

  element_class->request_new_pad
      = GST_DEBUG_FUNCPTR (gst_rnn_denoise_request_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_rnn_denoise_release_pad);
  element_class->change_state
      = GST_DEBUG_FUNCPTR (gst_rnn_denoise_change_state);

  gst_type_mark_as_plugin_api (GST_TYPE_RNN_DENOISE_PAD, 0);
}

static void
gst_rnn_denoise_init (GstRnnDenoise *self)
{
  self->model_path = g_strdup (DEFAULT_MODEL);
  self->attenuation_limit = DEFAULT_ATTENUATION_LIMIT;
  self->vad_threshold = DEFAULT_VAD_THRESHOLD;
  self->vad_hold_ms = DEFAULT_VAD_HOLD;
  self->reset_on_discont = DEFAULT_RESET_ON_DISCONT;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->message_interval = DEFAULT_MESSAGE_INTERVAL;
}
