/* rnndenoise — the state pad: its caps, buffer pool, negotiation and pushes
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "state/rnn_state_descriptor.h"
#include "state/rnn_state_quant.h"

#include "gstrnndenoiseprivate.h"

#define GST_CAT_DEFAULT gst_rnn_denoise_debug

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

/* Streaming thread. Replaces the pad's pool of state buffers with one of
 * buffers for @caps. Returns FALSE (and posts a warning) if the pool
 * refuses its configuration or cannot start. */
static gboolean
setup_pool (GstRnnDenoisePad *pad, GstCaps *caps)
{
  GstStructure *config;

  if (pad->state_pool != NULL) {
    gst_buffer_pool_set_active (pad->state_pool, FALSE);
    gst_clear_object (&pad->state_pool);
  }
  pad->state_pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pad->state_pool);
  gst_buffer_pool_config_set_params (config, caps,
      (guint) rnn_state_descriptor_hidden_bytes (&pad->state_desc), 2, 0);
  if (!gst_buffer_pool_set_config (pad->state_pool, config)
      || !gst_buffer_pool_set_active (pad->state_pool, TRUE)) {
    GST_ELEMENT_WARNING (GST_PAD_PARENT (pad), RESOURCE, SETTINGS,
        ("The state buffers of %s could not be set up; no state is published.",
            GST_PAD_NAME (pad)),
        ("buffer pool refused %" GST_PTR_FORMAT, caps));
    gst_clear_object (&pad->state_pool);
    return FALSE;
  }
  return TRUE;
}

/* Streaming thread. Picks the state format downstream accepts (F32LE
 * first), sets up a buffer pool of state-sized buffers and sends the
 * sticky events. Returns FALSE if the state pad cannot be used now. */
static gboolean
negotiate_state_pad (GstRnnDenoisePad *pad, GstPad *statepad)
{
  GstCaps *ours, *peer, *caps;
  const gchar *format;
  gchar *stream_id;

  ours = gst_static_pad_template_get_caps (&gst_rnn_denoise_state_template);
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
  dsp_processor_describe_side_output (pad->processor,
      element_type_from_format (format), &pad->state_desc);
  gst_caps_unref (peer);

  caps = state_caps_for (&pad->state_desc);
  if (!setup_pool (pad, caps)) {
    gst_caps_unref (caps);
    return FALSE;
  }

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

GstPad *
gst_rnn_denoise_get_statepad (GstRnnDenoise *self, GstRnnDenoisePad *pad)
{
  GstPad *statepad;

  GST_OBJECT_LOCK (self);
  statepad = pad->statepad != NULL ? gst_object_ref (pad->statepad) : NULL;
  GST_OBJECT_UNLOCK (self);
  return statepad;
}

/* The state pad is an observer: its downstream going away (NOT_LINKED,
 * FLUSHING: its sink was shut down or the pad released; EOS: it wants no
 * more) never stops the audio, which keeps its own flow return. Only a
 * fatal error downstream of the state pad (NOT_NEGOTIATED, ERROR) stops
 * the stream, as it would for any branch of a tee. */
GstFlowReturn
gst_rnn_denoise_combine_flows (GstFlowReturn audio, GstFlowReturn state,
    gboolean pushed)
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

/* Streaming thread. Returns a state buffer to fill (mapped in @map), or
 * NULL when no state pad is linked: an unlinked state pad costs no copy. */
GstBuffer *
gst_rnn_denoise_statepad_acquire (GstRnnDenoisePad *pad, GstPad *statepad,
    GstMapInfo *map)
{
  GstBuffer *state_buf = NULL;
  GstFlowReturn ret;

  if (statepad == NULL || !gst_pad_is_linked (statepad))
    return NULL;
  if ((!pad->state_negotiated || pad->state_needs_events)
      && !negotiate_state_pad (pad, statepad))
    return NULL;
  ret = gst_buffer_pool_acquire_buffer (pad->state_pool, &state_buf, NULL);
  if (ret != GST_FLOW_OK) {
    /* Flushing is normal; anything else loses this buffer's state. */
    if (ret != GST_FLOW_FLUSHING)
      GST_WARNING_OBJECT (pad, "no state buffer (%s): state not published",
          gst_flow_get_name (ret));
    return NULL;
  }
  if (!gst_buffer_map (state_buf, map, GST_MAP_WRITE)) {
    GST_WARNING_OBJECT (pad, "cannot map a state buffer: state not published");
    gst_buffer_unref (state_buf);
    return NULL;
  }
  return state_buf;
}

/* Sends an event to the pad's state pad, if any (sticky events are resent
 * at negotiation, so a state pad requested late still gets them). */
void
gst_rnn_denoise_statepad_push_event (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    GstEvent *event)
{
  GstPad *statepad = gst_rnn_denoise_get_statepad (self, pad);

  if (statepad != NULL && pad->state_negotiated)
    gst_pad_push_event (statepad, gst_event_ref (event));
  if (statepad != NULL)
    gst_object_unref (statepad);
}

/* Streaming thread. EOS reaches the state pad even when no state buffer
 * was pushed (EOS before the first buffer, or before caps): the pad first
 * gets its stream-start, caps (if the stream has caps) and segment, so that
 * its downstream can finish. */
void
gst_rnn_denoise_statepad_push_eos (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    GstEvent *event)
{
  GstPad *statepad = gst_rnn_denoise_get_statepad (self, pad);
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

/* What a released state pad's branch still needs: its sink pad (the
 * released pad's former peer, referenced) and the state stream's id. */
typedef struct
{
  GstPad *peer;
  gchar *stream_id;
} BranchEnd;

static void
branch_end_free (gpointer data)
{
  BranchEnd *end = data;

  gst_object_unref (end->peer);
  g_free (end->stream_id);
  g_free (end);
}

/* Sends @event (taking it) to @pad unless @pad already holds a sticky
 * event of its type. */
static void
send_unless_sticky (GstPad *pad, GstEvent *event)
{
  GstEvent *sticky = gst_pad_get_sticky_event (pad, GST_EVENT_TYPE (event), 0);

  if (sticky != NULL) {
    gst_event_unref (sticky);
    gst_event_unref (event);
    return;
  }
  gst_pad_send_event (pad, event);
}

/* A thread of GStreamer's pool (gst_element_call_async ()). Sends EOS to
 * the branch, after a stream-start and a segment if it never had them.
 * Sending a serialized event waits for the peer's stream lock, which a
 * push of the streaming thread may hold for a long time (a full queue in
 * PAUSED): that is why this does not run in the releasing thread. */
static void
end_branch (GstElement *element, gpointer data)
{
  BranchEnd *end = data;
  GstSegment segment;

  (void) element;
  send_unless_sticky (end->peer, gst_event_new_stream_start (end->stream_id));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  send_unless_sticky (end->peer, gst_event_new_segment (&segment));
  GST_DEBUG_OBJECT (end->peer, "a released state pad's branch: EOS");
  gst_pad_send_event (end->peer, gst_event_new_eos ());
}

/* Application thread, releasing @statepad once it is detached from its
 * stream @stream (NULL if it had none), so that no buffer is started on it
 * any more. Its branch would otherwise wait forever: a sink that never had
 * a buffer holds a live pipeline in PAUSED, and a sink without EOS keeps
 * the pipeline from ever posting EOS. So the branch gets EOS, sent to the
 * pad's peer from another thread (end_branch ()) so that the release never
 * waits. A push that the streaming thread began before the pad was
 * detached may still be under way: the peer's stream lock orders the two,
 * and a state buffer after the EOS only gets GST_FLOW_EOS back, which an
 * observer ignores. An inactive pad (released in READY or NULL) has no
 * running branch: nothing is sent. */
void
gst_rnn_denoise_statepad_end_released (GstElement *element, GstPad *statepad,
    GstRnnDenoisePad *stream)
{
  BranchEnd *end;
  GstPad *peer;

  if (!gst_pad_is_active (statepad))
    return;
  peer = gst_pad_get_peer (statepad);
  if (peer == NULL)
    return;
  end = g_new0 (BranchEnd, 1);
  end->peer = peer;
  end->stream_id = stream != NULL
      ? state_stream_id (stream)
      : g_strdup_printf ("rnndenoise/%s", GST_PAD_NAME (statepad));
  gst_element_call_async (element, end_branch, end, branch_end_free);
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
gboolean
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
gboolean
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

/* Streaming thread. Unmaps @state_buf and pushes it when the buffer of
 * @n_samples input samples completed @frames frames (the final state after
 * its last frame); drops it otherwise. Takes ownership of @state_buf. */
GstFlowReturn
gst_rnn_denoise_statepad_push (GstRnnDenoisePad *pad, GstPad *statepad,
    GstBuffer *state_buf, GstMapInfo *map, guint frames, GstClockTime pts,
    guint n_samples, gboolean *pushed)
{
  gst_buffer_unmap (state_buf, map);
  if (frames == 0) {
    gst_buffer_unref (state_buf);
    return GST_FLOW_OK;
  }
  /* Immutable from here on: the pool hands it out again only once
   * downstream let go. */
  GST_BUFFER_PTS (state_buf) = pts;
  GST_BUFFER_DURATION (state_buf)
      = gst_rnn_denoise_samples_to_time (pad, n_samples);
  GST_BUFFER_OFFSET (state_buf) = pad->invocation - 1;
  *pushed = TRUE;
  return gst_pad_push (statepad, state_buf);
}
