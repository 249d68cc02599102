/* rnndenoise — the sink pad class: one stream's pad, its per-pad properties and
 * its processor
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "dsp/dsp_processor.h"
#include "state/rnn_state_error.h"
#include "state/rnn_state_snapshot.h"

#include "gstrnndenoiseprivate.h"

#define GST_CAT_DEFAULT gst_rnn_denoise_debug

enum
{
  PROP_PAD_0,
  PROP_PAD_ATTENUATION_LIMIT,
  PROP_PAD_VAD_THRESHOLD,
  PROP_PAD_STATE_STATS,
};

G_DEFINE_TYPE (GstRnnDenoisePad, gst_rnn_denoise_pad, GST_TYPE_PAD);

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
  dsp_processor_get_counters (pad->processor, &c);
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
  g_free (pad->work);
  g_free (pad->frame_out);
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

/* Replaces the pad's processor; the old one is freed after the swap, so an
 * application thread that holds pad->lock never sees it freed under it. */
void
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

/* Forgets the stream: processor (with any import not applied yet),
 * timing. Called with the streaming thread stopped (state change to READY,
 * pad release). */
/* Sample counts, timestamps and flags of a stream that starts again: after
 * a reset, new caps or forgetting the stream. Called from the streaming
 * thread or with the stream stopped. */
void
gst_rnn_denoise_pad_restart_counts (GstRnnDenoisePad *pad)
{
  pad->held = 0;
  pad->surplus = 0;
  pad->discont_carried = FALSE;
  pad->invocation = 0;
  pad->ts_base = GST_CLOCK_TIME_NONE;
  pad->in_samples = 0;
  pad->discont_pending = TRUE;
}

void
gst_rnn_denoise_pad_forget_stream (GstRnnDenoisePad *pad)
{
  gst_rnn_denoise_pad_set_processor (pad, NULL);
  pad->have_info = FALSE;
  gst_rnn_denoise_pad_restart_counts (pad);
  pad->state_negotiated = FALSE;
}

/* A stream-event reset (contract point 7): the state returns to its
 * initial value; an import that has not taken effect yet is kept, so that it
 * seeds the next buffer. */
void
gst_rnn_denoise_pad_reset_stream (GstRnnDenoisePad *pad)
{
  g_mutex_lock (&pad->lock);
  if (pad->processor != NULL)
    dsp_processor_reset (pad->processor, FALSE);
  g_mutex_unlock (&pad->lock);
  gst_rnn_denoise_pad_restart_counts (pad);
  gst_rnn_denoise_stats_reset (&pad->stats);
  GST_DEBUG_OBJECT (pad, "state reset");
}

/* The snapshot's channel count and model id, or FALSE if it does not
 * parse. */
static gboolean
snapshot_batch_and_model (GBytes *bytes, guint *batch, guint64 *model_id,
    GError **error)
{
  RnnStateSnapshot *snapshot;
  const RnnStateDescriptor *desc;

  snapshot = rnn_state_snapshot_parse (g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), error);
  if (snapshot == NULL)
    return FALSE;
  desc = rnn_state_snapshot_get_descriptor (snapshot);
  *batch = desc->batch;
  *model_id = desc->model_id;
  rnn_state_snapshot_free (snapshot);
  return TRUE;
}

/* The model of @models whose id is @model_id, else the first (whose
 * processor then refuses the snapshot, naming both ids). */
static DspModel *
model_for_id (GPtrArray *models, guint64 model_id)
{
  guint i;

  for (i = 0; i < models->len; i++)
    if (dsp_model_get_id (g_ptr_array_index (models, i)) == model_id)
      return g_ptr_array_index (models, i);
  return g_ptr_array_index (models, 0);
}

/* A processor for a stream without caps yet, made from the snapshot's own
 * model (among @models) and channel count and seeded with it; NULL if the
 * snapshot is refused. */
static DspProcessor *
processor_for_snapshot (GPtrArray *models, GBytes *bytes, GError **error)
{
  DspProcessor *processor;
  guint64 model_id;
  guint batch;

  if (!snapshot_batch_and_model (bytes, &batch, &model_id, error))
    return NULL;
  if (batch < 1 || batch > GST_RNN_DENOISE_MAX_CHANNELS) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "batch %u, the element supports 1..%d channels", batch,
        GST_RNN_DENOISE_MAX_CHANNELS);
    return NULL;
  }
  processor = dsp_processor_new (model_for_id (models, model_id), batch, error);
  if (processor != NULL
      && !dsp_processor_import (processor, g_bytes_get_data (bytes, NULL),
          g_bytes_get_size (bytes), error))
    g_clear_pointer (&processor, dsp_processor_free);
  return processor;
}

/* Any thread but the streaming one; takes pad->lock, so call it with no
 * pad lock held. Imports @bytes into the stream: its processor holds an
 * accepted import until the next buffer (the import's one owner). A stream
 * without caps yet gets a processor for the snapshot's model and channel
 * count, chosen among the loaded @models (fetched by the caller before any
 * lock: no model is loaded here), but only if the import is accepted: a
 * refused one leaves the stream as it was, without a state. A stream with
 * caps keeps its processor, which refuses a snapshot of another model. */
gboolean
gst_rnn_denoise_pad_import (GstRnnDenoisePad *pad, GPtrArray *models,
    GBytes *bytes, GError **error)
{
  DspProcessor *made = NULL;
  gboolean ok;

  g_mutex_lock (&pad->lock);
  if (pad->processor == NULL) {
    g_mutex_unlock (&pad->lock);
    made = processor_for_snapshot (models, bytes, error);
    if (made == NULL)
      return FALSE;
    g_mutex_lock (&pad->lock);
  }
  if (pad->processor == NULL) {
    pad->processor = g_steal_pointer (&made);
    ok = TRUE;
  } else {
    /* Caps came meanwhile, or the stream already had a processor. */
    ok = dsp_processor_import (pad->processor, g_bytes_get_data (bytes, NULL),
        g_bytes_get_size (bytes), error);
  }
  g_mutex_unlock (&pad->lock);
  dsp_processor_free (made);
  return ok;
}

/* Any thread. The whole stream as snapshot bytes, or NULL before it has a
 * state (no caps and no import). */
GBytes *
gst_rnn_denoise_pad_export (GstRnnDenoisePad *pad)
{
  GBytes *bytes = NULL;

  g_mutex_lock (&pad->lock);
  if (pad->processor != NULL)
    bytes = dsp_processor_export (pad->processor);
  g_mutex_unlock (&pad->lock);
  return bytes;
}

void
gst_rnn_denoise_pad_reset_by_application (GstRnnDenoisePad *pad)
{
  /* An application's reset also forgets a state set but not yet used. */
  g_mutex_lock (&pad->lock);
  if (pad->processor != NULL)
    dsp_processor_reset (pad->processor, TRUE);
  g_mutex_unlock (&pad->lock);
  GST_DEBUG_OBJECT (pad, "reset by the application");
}
