/* rnndenoise — GStreamer element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-rnndenoise
 * @title: rnndenoise
 *
 * Removes noise from speech with a small recurrent network (GRU) run on
 * every 10 ms frame. The always pads `sink` and `src` carry the first
 * stream, so the element works as a plain filter (`playbin
 * audio-filter=rnndenoise`, `gst_element_get_static_pad (el, "sink")`);
 * each request pad `sink_%u` (numbered from 1) is one more independent
 * stream with its denoised audio on the matching `src_%u`. A stream has 1 to
 * 8 interleaved channels, one network batch row per channel. The state pad
 * of stream N is `state_N`; the first stream's is `state_0`.
 *
 * The recurrent state of each stream is owned by the element: it persists
 * from one buffer to the next, is never shared between pads, and is reset
 * only on READY→PAUSED, FLUSH_STOP, a caps change, STREAM_START, a DISCONT
 * buffer (unless #GstRnnDenoise:reset-on-discont is FALSE), a non-finite
 * state (with a warning) and the #GstRnnDenoise::reset action. Request a
 * `state_%u` pad to receive the state after every buffer that completed a
 * frame; use #GstRnnDenoise::export-state and #GstRnnDenoise::import-state to
 * export a whole stream (network state and DSP history) and continue it
 * bit-exactly in another element, pipeline or host.
 *
 * The output lags the input by 30 ms with the built-in models, which read
 * one 10 ms frame ahead: 20 ms for the algorithm and one frame more per
 * frame a model reads ahead (reported in the latency query);
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

#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "dsp/dsp_model.h"

#include "gstrnndenoise.h"
#include "gstrnndenoiseprivate.h"

GST_DEBUG_CATEGORY (gst_rnn_denoise_debug);
#define GST_CAT_DEFAULT gst_rnn_denoise_debug

#define DEFAULT_MODEL NULL
#define DEFAULT_ATTENUATION_LIMIT 0.0
#define DEFAULT_LEVEL_NORMALIZATION DSP_DEFAULT_LEVEL_NORMALIZATION
#define DEFAULT_HUM_REMOVAL DSP_DEFAULT_HUM_REMOVAL
/* Below 0: the speech protection the model file names. */
#define DEFAULT_SPEECH_PROTECTION DSP_SPEECH_PROTECTION_OF_MODEL
#define DEFAULT_VAD_THRESHOLD 0.0
#define DEFAULT_VAD_HOLD (200 * GST_MSECOND)
#define DEFAULT_RESET_ON_DISCONT TRUE
#define DEFAULT_POST_MESSAGES FALSE
#define DEFAULT_LOW_LATENCY FALSE
#define DEFAULT_MESSAGE_INTERVAL (100 * GST_MSECOND)

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_ATTENUATION_LIMIT,
  PROP_SPEECH_PROTECTION,
  PROP_STATIONARY_SUPPRESSION,
  PROP_HARMONIC_LIFT,
  PROP_SPEECH_HOLD,
  PROP_LEVEL_NORMALIZATION,
  PROP_HUM_REMOVAL,
  PROP_VAD_THRESHOLD,
  PROP_VAD_HOLD,
  PROP_RESET_ON_DISCONT,
  PROP_POST_MESSAGES,
  PROP_MESSAGE_INTERVAL,
  PROP_LOW_LATENCY,
};

enum
{
  SIGNAL_RESET,
  SIGNAL_EXPORT_STATE,
  SIGNAL_IMPORT_STATE,
  LAST_SIGNAL,
};

static guint gst_rnn_denoise_signals[LAST_SIGNAL];

/* clang-format off */
#define AUDIO_CAPS \
  "audio/x-raw, format = (string) { " GST_AUDIO_NE (F32) ", " \
  GST_AUDIO_NE (S16) " }, layout = (string) interleaved, " \
  "rate = (int) " GST_RNN_DENOISE_RATES ", channels = (int) [ 1, " \
  G_STRINGIFY (GST_RNN_DENOISE_MAX_CHANNELS) " ]"
#define STATE_CAPS \
  "application/x-rnn-state, format = (string) { F32LE, S16LE, S8 }"
/* clang-format on */

/* The first stream: a plain filter's always pads. */
static GstStaticPadTemplate gst_rnn_denoise_first_sink_template
    = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (AUDIO_CAPS));
static GstStaticPadTemplate gst_rnn_denoise_first_src_template
    = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (AUDIO_CAPS));
/* More streams, numbered from 1. */
GstStaticPadTemplate gst_rnn_denoise_sink_template
    = GST_STATIC_PAD_TEMPLATE ("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST,
        GST_STATIC_CAPS (AUDIO_CAPS));
GstStaticPadTemplate gst_rnn_denoise_src_template
    = GST_STATIC_PAD_TEMPLATE ("src_%u", GST_PAD_SRC, GST_PAD_SOMETIMES,
        GST_STATIC_CAPS (AUDIO_CAPS));
GstStaticPadTemplate gst_rnn_denoise_state_template
    = GST_STATIC_PAD_TEMPLATE ("state_%u", GST_PAD_SRC, GST_PAD_REQUEST,
        GST_STATIC_CAPS (STATE_CAPS));

static void gst_rnn_denoise_child_proxy_init (gpointer g_iface,
    gpointer iface_data);

#define gst_rnn_denoise_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstRnnDenoise, gst_rnn_denoise, GST_TYPE_ELEMENT,
                         G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
                             gst_rnn_denoise_child_proxy_init);
                         GST_DEBUG_CATEGORY_INIT (gst_rnn_denoise_debug,
                             "rnndenoise", 0, "recurrent speech denoiser"));
GST_ELEMENT_REGISTER_DEFINE (rnndenoise, "rnndenoise", GST_RANK_NONE,
    GST_TYPE_RNN_DENOISE);

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

/* Makes stream @index's sink pad (from @templ, named @name) and its source
 * pad (from @src_templ, named @src_name). */
static GstRnnDenoisePad *
make_stream_pads (GstPadTemplate *templ, const gchar *name,
    GstPadTemplate *src_templ, const gchar *src_name, guint index)
{
  GstRnnDenoisePad *pad;
  GstPad *srcpad;

  pad = g_object_new (GST_TYPE_RNN_DENOISE_PAD, "name", name, "direction",
      GST_PAD_SINK, "template", templ, NULL);
  pad->index = index;
  gst_pad_set_chain_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_chain));
  gst_pad_set_event_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_sink_event));
  gst_pad_set_query_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_sink_query));

  srcpad = gst_pad_new_from_template (src_templ, src_name);
  gst_pad_set_element_private (srcpad, pad);
  gst_pad_set_query_function (srcpad,
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_src_query));
  gst_pad_set_event_function (srcpad,
      GST_DEBUG_FUNCPTR (gst_rnn_denoise_src_event));
  gst_pad_use_fixed_caps (srcpad);
  pad->srcpad = srcpad;
  return pad;
}

/* Links a new stream to a state pad requested before it, activates its pads
 * when the element already runs and adds them. */
static void
add_stream_pads (GstRnnDenoise *self, GstRnnDenoisePad *pad)
{
  GstPad *srcpad = pad->srcpad;

  GST_OBJECT_LOCK (self);
  pad->statepad = find_statepad_unlocked (self, pad->index);
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
}

/* A request for "sink_%u": stream 0 is the always pad "sink", so requests
 * are numbered from 1. */
static GstPad *
request_sinkpad (GstRnnDenoise *self, GstPadTemplate *templ,
    const gchar *req_name)
{
  GstRnnDenoisePad *pad;
  gchar *name, *src_name;
  guint index;

  GST_OBJECT_LOCK (self);
  if (req_name != NULL && parse_index (req_name, "sink_", &index)) {
    if (index == 0 || find_sinkpad_unlocked (self, index) != NULL) {
      GST_OBJECT_UNLOCK (self);
      GST_WARNING_OBJECT (self,
          "pad %s already exists (the first stream is \"sink\")", req_name);
      return NULL;
    }
  } else {
    index = MAX (self->next_sink_index, 1);
    while (find_sinkpad_unlocked (self, index) != NULL)
      index++;
  }
  self->next_sink_index = MAX (self->next_sink_index, index + 1);
  GST_OBJECT_UNLOCK (self);

  name = g_strdup_printf ("sink_%u", index);
  src_name = g_strdup_printf ("src_%u", index);
  pad = make_stream_pads (templ, name,
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self),
          "src_%u"),
      src_name, index);
  g_free (name);
  g_free (src_name);
  add_stream_pads (self, pad);
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

/* Detaches @statepad from its stream first (the streaming thread takes the
 * state pad under the object lock at each buffer, so it starts no push on
 * it after this), then has its branch ended with EOS (from another thread:
 * the release never waits for the branch), then deactivates and removes
 * it. */
static void
release_statepad (GstRnnDenoise *self, GstPad *statepad)
{
  GstRnnDenoisePad *sinkpad;

  GST_OBJECT_LOCK (self);
  sinkpad = gst_pad_get_element_private (statepad);
  if (sinkpad != NULL && sinkpad->statepad == statepad)
    sinkpad->statepad = NULL;
  if (sinkpad != NULL)
    gst_object_ref (sinkpad);
  GST_OBJECT_UNLOCK (self);

  gst_rnn_denoise_statepad_end_released (GST_ELEMENT (self), statepad, sinkpad);
  if (sinkpad != NULL)
    gst_object_unref (sinkpad);
  gst_pad_set_active (statepad, FALSE);
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

/* Finds the stream a pad name designates: "sink", "src" or "state_0" for
 * the first stream, "sink_N", "src_N" or "state_N" (N >= 1) for the others.
 * Returns a new reference or NULL. */
static GstRnnDenoisePad *
lookup_stream (GstRnnDenoise *self, const gchar *name)
{
  GstRnnDenoisePad *pad = NULL;
  guint index = 0;

  if (g_strcmp0 (name, "sink") != 0 && g_strcmp0 (name, "src") != 0
      && !parse_index (name, "state_", &index)) {
    if (!parse_index (name, "sink_", &index)
        && !parse_index (name, "src_", &index))
      return NULL;
    if (index == 0)
      return NULL;
  }
  GST_OBJECT_LOCK (self);
  pad = find_sinkpad_unlocked (self, index);
  if (pad != NULL)
    gst_object_ref (pad);
  GST_OBJECT_UNLOCK (self);
  return pad;
}

static void for_each_stream (GstRnnDenoise *self,
    void (*func) (GstRnnDenoisePad *));

static gboolean
gst_rnn_denoise_reset_action (GstRnnDenoise *self, const gchar *pad_name)
{
  GstRnnDenoisePad *pad;

  if (pad_name == NULL) {
    for_each_stream (self, gst_rnn_denoise_pad_reset_by_application);
    return TRUE;
  }
  pad = lookup_stream (self, pad_name);
  if (pad == NULL) {
    GST_WARNING_OBJECT (self, "reset: no stream called \"%s\"", pad_name);
    return FALSE;
  }
  gst_rnn_denoise_pad_reset_by_application (pad);
  gst_object_unref (pad);
  return TRUE;
}

static GBytes *
gst_rnn_denoise_export_state_action (GstRnnDenoise *self, const gchar *pad_name)
{
  GstRnnDenoisePad *pad = lookup_stream (self, pad_name);
  GBytes *bytes;

  if (pad == NULL) {
    GST_WARNING_OBJECT (self, "export-state: no stream called \"%s\"",
        GST_STR_NULL (pad_name));
    return NULL;
  }
  bytes = gst_rnn_denoise_pad_export (pad);
  if (bytes == NULL)
    GST_DEBUG_OBJECT (pad, "export-state: no state yet (no caps)");
  gst_object_unref (pad);
  return bytes;
}

static gboolean
gst_rnn_denoise_import_state_action (GstRnnDenoise *self, const gchar *pad_name,
    GBytes *bytes)
{
  GstRnnDenoisePad *pad = lookup_stream (self, pad_name);
  GError *error = NULL;
  GPtrArray *models = NULL;
  gboolean ok;

  if (pad == NULL) {
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("import-state refused: no stream called \"%s\".",
            GST_STR_NULL (pad_name)),
        (NULL));
    return FALSE;
  }
  if (bytes == NULL) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("import-state refused for %s: no state given.", GST_PAD_NAME (pad)),
        (NULL));
    gst_object_unref (pad);
    return FALSE;
  }
  /* The models first, with no lock held: loading them may read a file. */
  if (gst_rnn_denoise_ensure_models (self, &error)) {
    models = gst_rnn_denoise_peek_models (self);
    if (models == NULL)
      g_set_error (&error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
          "the model property changed meanwhile");
  }
  ok = models != NULL
      && gst_rnn_denoise_pad_import (pad, models, bytes, &error);
  g_clear_pointer (&models, g_ptr_array_unref);
  if (!ok) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("import-state refused for %s: %s", GST_PAD_NAME (pad), error->message),
        ("%s", error->message));
    g_clear_error (&error);
  } else {
    GST_DEBUG_OBJECT (pad, "state accepted; applies at the next buffer");
  }
  gst_object_unref (pad);
  return ok;
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
    if (!gst_rnn_denoise_load_model (self))
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

static void
set_model_path (GstRnnDenoise *self, const gchar *path)
{
  GPtrArray *old = NULL;

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
    old = g_steal_pointer (&self->models);
  }
  GST_OBJECT_UNLOCK (self);
  if (old != NULL) {
    g_ptr_array_unref (old);
    /* Processors made by import-state in READY belong to the old model. */
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
    case PROP_SPEECH_PROTECTION:
      self->speech_protection = g_value_get_double (value);
      break;
    case PROP_STATIONARY_SUPPRESSION:
      self->stationary_suppression = g_value_get_double (value);
      break;
    case PROP_HARMONIC_LIFT:
      self->harmonic_lift = g_value_get_double (value);
      break;
    case PROP_SPEECH_HOLD:
      self->speech_hold = g_value_get_double (value);
      break;
    case PROP_LEVEL_NORMALIZATION:
      self->level_normalization = g_value_get_boolean (value);
      break;
    case PROP_HUM_REMOVAL:
      self->hum_removal = g_value_get_boolean (value);
      break;
    case PROP_VAD_THRESHOLD:
      self->vad_threshold = g_value_get_double (value);
      break;
    case PROP_VAD_HOLD:
      self->vad_hold = g_value_get_uint64 (value);
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
    case PROP_LOW_LATENCY:
      self->low_latency = g_value_get_boolean (value);
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
    case PROP_SPEECH_PROTECTION:
      g_value_set_double (value, self->speech_protection);
      break;
    case PROP_STATIONARY_SUPPRESSION:
      g_value_set_double (value, self->stationary_suppression);
      break;
    case PROP_HARMONIC_LIFT:
      g_value_set_double (value, self->harmonic_lift);
      break;
    case PROP_SPEECH_HOLD:
      g_value_set_double (value, self->speech_hold);
      break;
    case PROP_LEVEL_NORMALIZATION:
      g_value_set_boolean (value, self->level_normalization);
      break;
    case PROP_HUM_REMOVAL:
      g_value_set_boolean (value, self->hum_removal);
      break;
    case PROP_VAD_THRESHOLD:
      g_value_set_double (value, self->vad_threshold);
      break;
    case PROP_VAD_HOLD:
      g_value_set_uint64 (value, self->vad_hold);
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
    case PROP_LOW_LATENCY:
      g_value_set_boolean (value, self->low_latency);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

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

static GstPad *
first_statepad_unlocked (GstElement *element)
{
  GList *l;

  for (l = element->srcpads; l != NULL; l = l->next)
    if (g_str_has_prefix (GST_PAD_NAME (l->data), "state_"))
      return gst_object_ref (l->data);
  return NULL;
}

static GstPad *
first_requested_sinkpad_unlocked (GstElement *element)
{
  GList *l;

  for (l = element->sinkpads; l != NULL; l = l->next)
    if (GST_RNN_DENOISE_PAD (l->data)->index != 0)
      return gst_object_ref (l->data);
  return NULL;
}

static void
gst_rnn_denoise_dispose (GObject *object)
{
  GstElement *element = GST_ELEMENT (object);
  GstPad *pad;

  /* Release the request pads still there: state pads, then streams (whose
   * source pads go with them). The first stream's always pads go with the
   * element. */
  for (;;) {
    GST_OBJECT_LOCK (element);
    pad = first_statepad_unlocked (element);
    if (pad == NULL)
      pad = first_requested_sinkpad_unlocked (element);
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
  g_clear_pointer (&self->models, g_ptr_array_unref);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
install_model_property (GObjectClass *gobject_class)
{
  /**
   * GstRnnDenoise:model:
   *
   * A model file (see docs/model-format.md), which then serves its own
   * rate only; unset uses the models built into the plugin, one for 48 kHz
   * and one for 16 kHz, each stream the one of its rate. Loaded on the
   * READY→PAUSED change, which fails with the loader's reason if the file
   * is missing or invalid.
   */
  g_object_class_install_property (gobject_class, PROP_MODEL,
      g_param_spec_string ("model", "Model",
          "Model file to load, for its rate only (unset = the models built "
          "into the plugin, 48 and 16 kHz)",
          DEFAULT_MODEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
}

/* The properties that shape the gains applied to each band and bin. */
static void
install_gain_properties (GObjectClass *gobject_class)
{
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
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING
              | GST_PARAM_CONTROLLABLE));

  /**
   * GstRnnDenoise:speech-protection:
   *
   * How much the noise reduction holds back in frames the network finds
   * speech in: each band gain g becomes g (1 + p vad w (1 - g)), at most
   * 1, where vad is the frame's voice probability and w how far the band's
   * smoothed level stands above its noise floor, in tens of dB, 0..2, so
   * that bands holding a steady noise are not lifted with the voice
   * (models without a noise floor: w = 1). 0 applies the network's gains
   * as they are; larger values keep more of the voice at a small cost in
   * noise left during speech, and frames without speech keep their full
   * reduction (the trade-off is measured in docs/quality.md). It also
   * lifts what stationary-suppression cut in frames with speech.
   *
   * -1, the default, takes the value the model file names, the one its
   * network was tuned with: 1 for both embedded models (1.25 before
   * speech-hold, which stands in for the rest), and 1 for model files of
   * format version 1, which name none (`rnndenoise-model info` prints
   * it).
   */
  g_object_class_install_property (gobject_class, PROP_SPEECH_PROTECTION,
      g_param_spec_double ("speech-protection", "Speech protection",
          "How much less to attenuate in frames with speech (0 = none, "
          "-1 = the model's own)",
          -1.0, DSP_MAX_SPEECH_PROTECTION, DEFAULT_SPEECH_PROTECTION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING
              | GST_PARAM_CONTROLLABLE));

  /**
   * GstRnnDenoise:stationary-suppression:
   *
   * How much of a steady noise (hum, fans, hiss: a noise that has been
   * there all along) is taken out whatever the network hears: each band
   * tracks its noise floor F (a slow minimum of its energy), and its gain
   * is held at or below sqrt (1 - s F / S) for the band's smoothed energy
   * S, but not below 0.2 (-14 dB), so that a weak voice in a noisy band is
   * not silenced with the noise. 0 applies the network's gains as they
   * are; 1, the default, costs next to no intelligibility (STOI) in the
   * quality evaluation, larger values remove more and cost more of it
   * (docs/quality.md).
   * Applied before speech-protection. Models that track no floor (feature
   * layout 1) are not affected.
   */
  g_object_class_install_property (gobject_class, PROP_STATIONARY_SUPPRESSION,
      g_param_spec_double ("stationary-suppression", "Stationary suppression",
          "How many times each band's tracked noise floor is taken out "
          "(0 = none)",
          0.0, DSP_MAX_STATIONARY_SUPPRESSION,
          DSP_DEFAULT_STATIONARY_SUPPRESSION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING
              | GST_PARAM_CONTROLLABLE));

  /**
   * GstRnnDenoise:harmonic-lift:
   *
   * How much more of itself a voice harmonic may keep than its band's gain
   * g would leave it. Below 4 kHz a band spans a few harmonics of a voiced
   * frame, which puts its energy into them with noise between them, so the
   * band gain takes from the harmonics what it rightly takes from the gaps.
   * Each bin there estimates its own noise as (1 - g²) of the mean power of
   * the 5 bins around it and takes the spectral-subtraction gain
   * sqrt (1 - noise / power) where that is higher than g, up to
   * (1 + lift) g and at most 1: a bin standing above its neighbours keeps
   * more, the gaps keep the band's gain. Bins whose gain is below 0.2 are
   * left alone (no voice there; noise peaks lifted alone would whistle).
   * Any lift above 0 also keeps a voice's fundamental under a low rumble:
   * in a frame with speech (voice probability at least 0.8), each bin from
   * 100 to 300 Hz takes three times its band's steady-noise share (from
   * the noise floor tracker) of the mean power around it as its noise and
   * gets the spectral-subtraction gain against that where it is higher,
   * even where the network cut the whole band.
   * It never lowers a gain and keeps no state. 0 turns it off; the default
   * 0.5 keeps about 0.3 dB more of the recorded voices at the same
   * SI-SDR gain (docs/quality.md). Applied after speech-protection and the
   * VAD gate, before the attenuation limit.
   */
  g_object_class_install_property (gobject_class, PROP_HARMONIC_LIFT,
      g_param_spec_double ("harmonic-lift", "Harmonic lift",
          "How much more than its band's gain a voice harmonic below 4 kHz "
          "may keep, as a fraction of that gain; above 0, a voice's "
          "fundamental under a steady low rumble is kept too (0 = none)",
          0.0, DSP_MAX_HARMONIC_LIFT, DSP_DEFAULT_HARMONIC_LIFT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING
              | GST_PARAM_CONTROLLABLE));

  /**
   * GstRnnDenoise:speech-hold:
   *
   * In a frame the network is sure holds speech (voice probability at
   * least 0.8, and the VAD gate open), no frequency bin's gain falls below
   * speech-hold times its gain in the frame before: at the default 0.8 a
   * voice's bins fall by at most 1.9 dB per 10 ms frame. Within a word
   * the network sometimes takes a bin of the voice for noise for a frame
   * or two and cuts it by 10 dB or more, which is where most of the
   * speech it still loses goes; held, such a bin is only turned down, and
   * the end of a sound fades over a few frames instead of stopping at
   * once. Frames without speech keep their full noise reduction. The
   * gains of each channel's last frame are stream state: they travel in
   * the state snapshots. 0 turns it off. With the built-in models (whose
   * speech protection is 1) it gives the ΔSI-SDR and speech lost of a
   * speech protection of 1.25 without it, with more intelligibility
   * (STOI), most of all at high SNRs (docs/model.md). Applied after
   * harmonic-lift, before the attenuation limit.
   */
  g_object_class_install_property (gobject_class, PROP_SPEECH_HOLD,
      g_param_spec_double ("speech-hold", "Speech hold",
          "In frames with speech, the smallest share of its gain in the "
          "frame before that a frequency bin keeps, so that the voice's "
          "gains fall slowly (0 = none)",
          0.0, 1.0, DSP_DEFAULT_SPEECH_HOLD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING
              | GST_PARAM_CONTROLLABLE));
}

/* What the network hears of the input's level. */
static void
install_level_property (GObjectClass *gobject_class)
{
  /**
   * GstRnnDenoise:level-normalization:
   *
   * Whether the network hears each channel as if its loud frames stood at
   * -27 dBFS, whatever the input's own level: the band energies it reads
   * are scaled by a gain (-10 to +30 dB) that follows the mean power of
   * the frames within 15 dB of a slowly decaying peak, averaged over about
   * 3 s. The gains it gives are applied to the input as it is, so the
   * output keeps the input's level. The network learnt its gains level by
   * level: without this, the same speech 20 dB quieter loses about five
   * times as much of itself (docs/model.md, "Level normalisation"). The
   * tracked level is part of each pad's state (exported and imported with
   * it), and is tracked whether this is on or not.
   */
  g_object_class_install_property (gobject_class, PROP_LEVEL_NORMALIZATION,
      g_param_spec_boolean ("level-normalization", "Level normalization",
          "Let the network hear the input at a fixed level, so that quiet "
          "and loud inputs are denoised alike (the output keeps its level)",
          DEFAULT_LEVEL_NORMALIZATION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING
              | GST_PARAM_CONTROLLABLE));
}

/* What is taken out before the network hears the input. */
static void
install_hum_property (GObjectClass *gobject_class)
{
  /**
   * GstRnnDenoise:hum-removal:
   *
   * Whether mains hum is subtracted from each channel before the network
   * hears it: the harmonics of 50 or 60 Hz (followed within 0.6 %) up to
   * 1 kHz that stay steady over seconds are measured in every frame,
   * averaged over about 2 s, and subtracted from the spectrum, so the voice
   * under the hum keeps its level, where band gains would take it with the
   * hum. On the recorded selection voices over hum it gives +1.3 dB of
   * ΔSI-SDR and a fifth less speech lost (docs/model.md, "The hum
   * canceller"). It takes a few seconds to lock on to a hum; a steady tone
   * at a harmonic of 50 or 60 Hz (a held musical note at 300 Hz, a test
   * tone at 1 kHz) is taken for hum. The canceller's state is part of each
   * pad's state (exported and imported with it), and it follows the hum
   * whether this is on or not.
   */
  g_object_class_install_property (gobject_class, PROP_HUM_REMOVAL,
      g_param_spec_boolean ("hum-removal", "Hum removal",
          "Subtract steady mains hum (harmonics of 50 or 60 Hz up to 1 kHz) "
          "before the network hears the input, keeping the voice under it",
          DEFAULT_HUM_REMOVAL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING
              | GST_PARAM_CONTROLLABLE));
}

static void
install_vad_gate_properties (GObjectClass *gobject_class)
{
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
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING
              | GST_PARAM_CONTROLLABLE));

  /**
   * GstRnnDenoise:vad-hold:
   *
   * How long, in nanoseconds, the VAD gate stays open after the last
   * voiced frame, so that word endings are not clipped; rounded up to
   * whole frames of the model's hop (10 ms for the embedded model).
   */
  g_object_class_install_property (gobject_class, PROP_VAD_HOLD,
      g_param_spec_uint64 ("vad-hold", "VAD hold",
          "Time the VAD gate stays open after voice, in ns", 0, 10 * GST_SECOND,
          DEFAULT_VAD_HOLD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
}

static void
install_stream_properties (GObjectClass *gobject_class)
{
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

  /**
   * GstRnnDenoise:low-latency:
   *
   * Write each 10 ms frame out as soon as it is complete. With input in
   * whole 10 ms frames (for example after `audiobuffersplit
   * output-buffer-duration=1/100`) the element then adds one 10 ms frame
   * less latency: 20 instead of 30 ms with the built-in models (the
   * algorithm's own 10 ms and the frame they read ahead), and the output
   * buffers have the input's sizes. Other input still works: the
   * output then comes in whole frames, lags up to the default latency, and
   * the element warns once and reports that latency again. The samples are
   * the same either way, one frame sooner. Costs one copy per buffer (the
   * output is written aside, not in place).
   */
  g_object_class_install_property (gobject_class, PROP_LOW_LATENCY,
      g_param_spec_boolean ("low-latency", "Low latency",
          "Output each frame when it completes: 10 ms less latency (20 ms "
          "instead of 30 with the built-in models) for input in whole 10 ms "
          "frames (e.g. after audiobuffersplit)",
          DEFAULT_LOW_LATENCY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
}

static void
install_signals (GstRnnDenoiseClass *klass)
{
  /**
   * GstRnnDenoise::reset:
   * @rnndenoise: the element
   * @pad_name: (nullable): a stream's pad name ("sink", "src" or "state_0"
   *   for the first stream, "sink_N", "src_N" or "state_N" for the others),
   *   or NULL for every stream
   *
   * Resets the stream's state to its initial value and forgets a state set
   * with #GstRnnDenoise::import-state that has not been used yet. Safe from any
   * thread; a buffer being processed completes first.
   *
   * Returns: FALSE if no such stream exists.
   */
  gst_rnn_denoise_signals[SIGNAL_RESET] = g_signal_new_class_handler ("reset",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_rnn_denoise_reset_action), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_STRING);

  /**
   * GstRnnDenoise::export-state:
   * @rnndenoise: the element
   * @pad_name: a stream's pad name ("sink", "src" or "state_0" for the
   *   first stream, "sink_N", "src_N" or "state_N" for the others)
   *
   * Exports the whole stream: the network's recurrent state and the DSP
   * history, as it is after the last completed buffer (never a torn mix).
   * The bytes are the snapshot format of docs/state-contract.md. Safe from
   * any thread.
   *
   * Returns: (transfer full) (nullable): the snapshot, or NULL if the stream
   * does not exist or has no caps yet.
   */
  gst_rnn_denoise_signals[SIGNAL_EXPORT_STATE]
      = g_signal_new_class_handler ("export-state", G_TYPE_FROM_CLASS (klass),
          G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
          G_CALLBACK (gst_rnn_denoise_export_state_action), NULL, NULL, NULL,
          G_TYPE_BYTES, 1, G_TYPE_STRING);

  /**
   * GstRnnDenoise::import-state:
   * @rnndenoise: the element
   * @pad_name: a stream's pad name ("sink", "src" or "state_0" for the
   *   first stream, "sink_N", "src_N" or "state_N" for the others)
   * @state: a snapshot from #GstRnnDenoise::export-state
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
  gst_rnn_denoise_signals[SIGNAL_IMPORT_STATE]
      = g_signal_new_class_handler ("import-state", G_TYPE_FROM_CLASS (klass),
          G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
          G_CALLBACK (gst_rnn_denoise_import_state_action), NULL, NULL, NULL,
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
  install_model_property (gobject_class);
  install_gain_properties (gobject_class);
  install_level_property (gobject_class);
  install_hum_property (gobject_class);
  install_vad_gate_properties (gobject_class);
  install_stream_properties (gobject_class);
  install_signals (klass);

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &gst_rnn_denoise_first_sink_template, GST_TYPE_RNN_DENOISE_PAD);
  gst_element_class_add_static_pad_template (element_class,
      &gst_rnn_denoise_first_src_template);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &gst_rnn_denoise_sink_template, GST_TYPE_RNN_DENOISE_PAD);
  gst_element_class_add_static_pad_template (element_class,
      &gst_rnn_denoise_src_template);
  gst_element_class_add_static_pad_template (element_class,
      &gst_rnn_denoise_state_template);
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
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  GstRnnDenoisePad *first;

  self->model_path = g_strdup (DEFAULT_MODEL);
  self->attenuation_limit = DEFAULT_ATTENUATION_LIMIT;
  self->speech_protection = DEFAULT_SPEECH_PROTECTION;
  self->stationary_suppression = DSP_DEFAULT_STATIONARY_SUPPRESSION;
  self->harmonic_lift = DSP_DEFAULT_HARMONIC_LIFT;
  self->speech_hold = DSP_DEFAULT_SPEECH_HOLD;
  self->level_normalization = DEFAULT_LEVEL_NORMALIZATION;
  self->hum_removal = DEFAULT_HUM_REMOVAL;
  self->vad_threshold = DEFAULT_VAD_THRESHOLD;
  self->vad_hold = DEFAULT_VAD_HOLD;
  self->reset_on_discont = DEFAULT_RESET_ON_DISCONT;
  self->low_latency = DEFAULT_LOW_LATENCY;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->message_interval = DEFAULT_MESSAGE_INTERVAL;
  self->next_sink_index = 1;

  /* The first stream, always there: sink -> src. */
  first = make_stream_pads (gst_element_class_get_pad_template (klass, "sink"),
      "sink", gst_element_class_get_pad_template (klass, "src"), "src", 0);
  add_stream_pads (self, first);
}
