/* rnndenoise — the shared, lazily loaded model
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

/* Returns a new reference to the element's model, loading it first if
 * needed: the embedded one when the model property is unset. May read a
 * file: call it with no lock held, never from a streaming thread. */
DspModel *
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
  if (loaded != NULL
      && dsp_model_get_frame_config (loaded)->sample_rate
          != GST_RNN_DENOISE_RATE) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "the model runs at %u Hz; the element runs models at %d Hz",
        dsp_model_get_frame_config (loaded)->sample_rate, GST_RNN_DENOISE_RATE);
    g_clear_pointer (&loaded, dsp_model_unref);
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

/* Returns a new reference to the element's model if it is loaded, NULL
 * if not; never loads it, so any thread may call it under a stream lock. */
DspModel *
gst_rnn_denoise_peek_model (GstRnnDenoise *self)
{
  DspModel *model;

  GST_OBJECT_LOCK (self);
  model = self->model != NULL ? dsp_model_ref (self->model) : NULL;
  GST_OBJECT_UNLOCK (self);
  return model;
}

/* The sink caps: the template's, at the rate of the loaded model. */
GstCaps *
gst_rnn_denoise_audio_caps (GstRnnDenoise *self)
{
  GstCaps *caps
      = gst_static_pad_template_get_caps (&gst_rnn_denoise_sink_template);
  DspModel *model = gst_rnn_denoise_peek_model (self);

  if (model != NULL) {
    caps = gst_caps_make_writable (caps);
    gst_caps_set_simple (caps, "rate", G_TYPE_INT,
        (gint) dsp_model_get_frame_config (model)->sample_rate, NULL);
    dsp_model_unref (model);
  }
  return caps;
}

/* The delay @pad's stream adds, in time: what the processors of the loaded
 * model add (20 ms for the embedded model), one hop less (10 ms) with
 * low-latency as long as the input comes in whole frames; 0 before the
 * model is loaded. Any thread. */
GstClockTime
gst_rnn_denoise_latency (GstRnnDenoise *self, GstRnnDenoisePad *pad)
{
  GstClockTime latency;
  DspModel *model;
  gboolean aligned;
  guint samples;

  model = gst_rnn_denoise_peek_model (self);
  if (model == NULL)
    return 0;
  GST_OBJECT_LOCK (self);
  aligned = self->low_latency;
  GST_OBJECT_UNLOCK (self);
  aligned = aligned && !g_atomic_int_get (&pad->late_frames);
  samples = aligned ? dsp_processor_get_aligned_latency (model)
                    : dsp_processor_get_model_latency (model);
  latency = gst_util_uint64_scale_int (samples, GST_SECOND,
      (gint) dsp_model_get_frame_config (model)->sample_rate);
  dsp_model_unref (model);
  return latency;
}

/* READY->PAUSED: loads the model, or fails the state change with the
 * loader's reason. */
gboolean
gst_rnn_denoise_load_model (GstRnnDenoise *self)
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
