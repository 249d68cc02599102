/* rnndenoise — the shared, lazily loaded models, one per sample rate
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_model.h"
#include "dsp/dsp_processor.h"

#include "gstrnndenoiseprivate.h"
#include "gstrnndenoisemodeldata.h"

#define GST_CAT_DEFAULT gst_rnn_denoise_debug

static guint
model_rate (const DspModel *model)
{
  return dsp_model_get_frame_config (model)->sample_rate;
}

/* Whether the pad templates offer @rate: a model at any other rate is
 * refused when it is loaded, so that the templates never promise what the
 * pads refuse. */
static gboolean
template_has_rate (guint rate)
{
  GstCaps *tmpl
      = gst_static_pad_template_get_caps (&gst_rnn_denoise_sink_template);
  GstCaps *want = gst_caps_new_simple ("audio/x-raw", "rate", G_TYPE_INT,
      (gint) rate, NULL);
  gboolean ok = gst_caps_can_intersect (tmpl, want);

  gst_caps_unref (want);
  gst_caps_unref (tmpl);
  return ok;
}

/* Appends @model (taken) to @models unless its rate is one the templates do
 * not offer or one of @models already has. */
static gboolean
add_model (GPtrArray *models, DspModel *model, const gchar *name,
    GError **error)
{
  guint rate = model_rate (model), i;

  if (!template_has_rate (rate)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "%s runs at %u Hz; the element runs models at %s Hz", name, rate,
        GST_RNN_DENOISE_RATES);
    dsp_model_unref (model);
    return FALSE;
  }
  for (i = 0; i < models->len; i++) {
    if (model_rate (g_ptr_array_index (models, i)) == rate) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "%s is a second model at %u Hz", name, rate);
      dsp_model_unref (model);
      return FALSE;
    }
  }
  g_ptr_array_add (models, model);
  return TRUE;
}

/* The models to run: the file's when @path is set, else every one built
 * into the plugin. Returns a new array of owned references, or NULL with
 * @error set. May read a file. */
static GPtrArray *
load_models (const gchar *path, GError **error)
{
  GPtrArray *models
      = g_ptr_array_new_with_free_func ((GDestroyNotify) dsp_model_unref);
  DspModel *model;
  GBytes *bytes;
  guint i;

  if (path != NULL) {
    model = dsp_model_new_from_file (path, error);
    if (model == NULL || !add_model (models, model, "the model", error))
      g_clear_pointer (&models, g_ptr_array_unref);
    return models;
  }
  for (i = 0; (bytes = gst_rnn_denoise_default_model_bytes (i)) != NULL; i++) {
    gchar *name = g_strdup_printf ("built-in model %u", i);

    model = dsp_model_new_from_bytes (bytes, error);
    g_bytes_unref (bytes);
    if (model == NULL || !add_model (models, model, name, error)) {
      g_free (name);
      g_clear_pointer (&models, g_ptr_array_unref);
      return NULL;
    }
    g_free (name);
  }
  return models;
}

/* Loads the models if they are not loaded yet: the file of the model
 * property, or every one built in. May read a file: call it with no lock
 * held, never from a streaming thread. */
gboolean
gst_rnn_denoise_ensure_models (GstRnnDenoise *self, GError **error)
{
  GPtrArray *loaded;
  gboolean have;
  gchar *path;
  guint i;

  GST_OBJECT_LOCK (self);
  have = self->models != NULL;
  path = g_strdup (self->model_path);
  GST_OBJECT_UNLOCK (self);
  if (have) {
    g_free (path);
    return TRUE;
  }

  loaded = load_models (path, error);
  if (loaded == NULL) {
    g_free (path);
    return FALSE;
  }
  for (i = 0; i < loaded->len; i++) {
    DspModel *model = g_ptr_array_index (loaded, i);

    GST_DEBUG_OBJECT (self,
        "loaded model %s at %u Hz (id %016" G_GINT64_MODIFIER "x)",
        path != NULL ? path : "(built in)", model_rate (model),
        dsp_model_get_id (model));
  }
  g_free (path);

  /* Another thread may have loaded them meanwhile: keep the first. The
   * array is never changed once set, only replaced (set_model_path()). */
  GST_OBJECT_LOCK (self);
  if (self->models == NULL)
    self->models = g_steal_pointer (&loaded);
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&loaded, g_ptr_array_unref);
  return TRUE;
}

/* Returns a new reference to the loaded model for @rate Hz, NULL if there
 * is none (or none is loaded); never loads, so any thread may call it
 * under a stream lock. */
DspModel *
gst_rnn_denoise_peek_model_for_rate (GstRnnDenoise *self, guint rate)
{
  DspModel *model = NULL;
  guint i;

  GST_OBJECT_LOCK (self);
  for (i = 0; self->models != NULL && i < self->models->len; i++) {
    if (model_rate (g_ptr_array_index (self->models, i)) == rate) {
      model = dsp_model_ref (g_ptr_array_index (self->models, i));
      break;
    }
  }
  GST_OBJECT_UNLOCK (self);
  return model;
}

/* Returns a new reference to the loaded models (an array of models, each
 * referenced by the array), NULL if none is loaded; never loads. */
GPtrArray *
gst_rnn_denoise_peek_models (GstRnnDenoise *self)
{
  GPtrArray *models;

  GST_OBJECT_LOCK (self);
  models = self->models != NULL ? g_ptr_array_ref (self->models) : NULL;
  GST_OBJECT_UNLOCK (self);
  return models;
}

/* The sink caps: the template's, at the rates of the loaded models. */
GstCaps *
gst_rnn_denoise_audio_caps (GstRnnDenoise *self)
{
  GstCaps *caps
      = gst_static_pad_template_get_caps (&gst_rnn_denoise_sink_template);
  GPtrArray *models = gst_rnn_denoise_peek_models (self);
  GValue rates = G_VALUE_INIT, rate = G_VALUE_INIT;
  guint i;

  if (models == NULL)
    return caps;
  g_value_init (&rates, GST_TYPE_LIST);
  g_value_init (&rate, G_TYPE_INT);
  for (i = 0; i < models->len; i++) {
    g_value_set_int (&rate, (gint) model_rate (g_ptr_array_index (models, i)));
    gst_value_list_append_value (&rates, &rate);
  }
  caps = gst_caps_make_writable (caps);
  if (models->len == 1)
    gst_caps_set_value (caps, "rate", &rate);
  else
    gst_caps_set_value (caps, "rate", &rates);
  g_value_unset (&rate);
  g_value_unset (&rates);
  g_ptr_array_unref (models);
  return caps;
}

/* The delay @pad's stream adds, in time: what the processors of its model
 * add (30 ms for the built-in models, which read a frame ahead), one hop
 * less (10 ms) with
 * low-latency as long as the input comes in whole frames; 0 before a model
 * is loaded. Before caps, the first model's. Any thread. */
GstClockTime
gst_rnn_denoise_latency (GstRnnDenoise *self, GstRnnDenoisePad *pad)
{
  GstClockTime latency;
  DspModel *model = NULL;
  GPtrArray *models;
  gboolean aligned;
  guint samples;

  g_mutex_lock (&pad->lock);
  if (pad->processor != NULL)
    model = dsp_model_ref (dsp_processor_get_model (pad->processor));
  g_mutex_unlock (&pad->lock);
  if (model == NULL && (models = gst_rnn_denoise_peek_models (self)) != NULL) {
    model = dsp_model_ref (g_ptr_array_index (models, 0));
    g_ptr_array_unref (models);
  }
  if (model == NULL)
    return 0;
  GST_OBJECT_LOCK (self);
  aligned = self->low_latency;
  GST_OBJECT_UNLOCK (self);
  aligned = aligned && !g_atomic_int_get (&pad->late_frames);
  samples = aligned ? dsp_processor_get_aligned_latency (model)
                    : dsp_processor_get_model_latency (model);
  latency = gst_util_uint64_scale_int (samples, GST_SECOND,
      (gint) model_rate (model));
  dsp_model_unref (model);
  return latency;
}

/* READY->PAUSED: loads the models, or fails the state change with the
 * loader's reason. */
gboolean
gst_rnn_denoise_load_model (GstRnnDenoise *self)
{
  GError *error = NULL;
  gchar *path;

  if (gst_rnn_denoise_ensure_models (self, &error))
    return TRUE;
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
