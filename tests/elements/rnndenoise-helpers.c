/* rnndenoise — element tests: helpers (harnesses, signals, reference runs,
 * snapshots)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnndenoise-helpers.h"

/* The model file named by the environment variable @variable. */
DspModel *
load_model_from_env (const gchar *variable)
{
  const gchar *path = g_getenv (variable);
  GError *error = NULL;
  DspModel *model;

  fail_unless (path != NULL, "%s is not set", variable);
  model = dsp_model_new_from_file (path, &error);
  fail_unless (model != NULL, "%s", error ? error->message : "");
  return model;
}

/* The 48 kHz model, the one the tests at RATE run. */
DspModel *
load_model (void)
{
  return load_model_from_env ("RNNDENOISE_MODEL");
}

/* Noisy, speech-like test signal, different per channel and seed. */
gfloat *
make_signal (guint n, guint channels, guint32 seed)
{
  gfloat *x = g_new (gfloat, (gsize) n * channels);
  GRand *rand = g_rand_new_with_seed (seed);
  guint i, c;

  for (i = 0; i < n; i++)
    for (c = 0; c < channels; c++) {
      gdouble t = (gdouble) i / RATE;
      gdouble f0 = 110.0 + 40.0 * c + 25.0 * sin (2 * G_PI * 2.5 * t);
      x[(gsize) i * channels + c] = (gfloat) (0.25 * sin (2 * G_PI * f0 * t)
              * (0.6 + 0.4 * sin (2 * G_PI * 4.0 * t))
          + 0.05 * g_rand_double_range (rand, -1.0, 1.0));
    }
  g_rand_free (rand);
  return x;
}

GstBuffer *
f32_buffer (const gfloat *x, guint n, guint channels, guint64 first_sample)
{
  GstBuffer *buf = gst_buffer_new_memdup (x, (gsize) n * channels * 4);

  GST_BUFFER_PTS (buf)
      = gst_util_uint64_scale_int (first_sample, GST_SECOND, RATE);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (n, GST_SECOND, RATE);
  return buf;
}

/* A harness on sink_N/src_N of a new element, caps set, playing. */
GstHarness *
new_stream_harness (const gchar *caps)
{
  GstHarness *h = gst_harness_new ("rnndenoise");

  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* A harness on a fresh element whose properties are set (name, value
 * pairs, NULL-terminated, as g_object_set() takes them) before it starts:
 * those that change only in NULL and READY (model, low-latency) too. */
GstHarness *
new_harness_with (const gchar *caps, const gchar *first_property, ...)
{
  GstElement *element = gst_element_factory_make ("rnndenoise", NULL);
  GstHarness *h;
  va_list args;

  /* The harness takes a reference of its own; ours (floating) goes. */
  gst_object_ref_sink (element);
  va_start (args, first_property);
  g_object_set_valist (G_OBJECT (element), first_property, args);
  va_end (args);
  h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* Pushes @n samples of @x in buffers of @chunk samples. */
void
push_signal (GstHarness *h, const gfloat *x, guint n, guint channels,
    guint chunk, guint64 first_sample)
{
  guint done = 0;

  while (done < n) {
    guint m = MIN (chunk, n - done);

    fail_unless_equals_int (gst_harness_push (h,
                                f32_buffer (x + (gsize) done * channels, m,
                                    channels, first_sample + done)),
        GST_FLOW_OK);
    done += m;
  }
}

/* Pulls every queued output buffer into one F32 array; returns samples per
 * channel. With @rate (Hz) not 0, checks that timestamps follow the
 * samples, counted from @first_sample. */
guint
pull_at_rate (GstHarness *h, guint channels, gfloat **out, guint64 first_sample,
    guint rate)
{
  GByteArray *acc = g_byte_array_new ();
  GstBuffer *buf;
  guint n;

  while ((buf = gst_harness_try_pull (h)) != NULL) {
    GstMapInfo map;
    guint64 index = first_sample + acc->len / (4 * channels);

    /* Within 1 ns: the element counts from its first timestamp. */
    if (rate != 0 && GST_BUFFER_PTS_IS_VALID (buf)) {
      gint64 expected
          = gst_util_uint64_scale_int (index, GST_SECOND, (gint) rate);
      fail_unless (ABS ((gint64) GST_BUFFER_PTS (buf) - expected) <= 1,
          "PTS %" G_GUINT64_FORMAT " for sample %" G_GUINT64_FORMAT,
          GST_BUFFER_PTS (buf), index);
    }
    gst_buffer_map (buf, &map, GST_MAP_READ);
    g_byte_array_append (acc, map.data, map.size);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
  n = acc->len / (4 * channels);
  *out = (gfloat *) g_byte_array_free (acc, FALSE);
  return n;
}

/* pull_at_rate() at RATE. */
guint
pull_all (GstHarness *h, guint channels, gfloat **out, guint64 first_sample)
{
  return pull_at_rate (h, channels, out, first_sample, RATE);
}

/* The reference: the same model through DspProcessor, drained; its final
 * state goes to @state when not NULL. */
guint
reference_run (const gfloat *x, guint n, guint channels, gfloat **out,
    GBytes **state)
{
  DspModel *model = load_model ();
  DspProcessor *p = dsp_processor_new (model, channels, NULL);
  guint produced;

  *out = g_new0 (gfloat, (gsize) (n + LATENCY) * channels);
  produced = dsp_processor_process (p, x, *out, n, NULL, NULL, 0, NULL);
  produced += dsp_processor_drain (p, *out + (gsize) produced * channels);
  if (state != NULL)
    *state = dsp_processor_export (p);
  dsp_processor_free (p);
  dsp_model_unref (model);
  return produced;
}

guint
reference_output (const gfloat *x, guint n, guint channels, gfloat **out)
{
  return reference_run (x, n, channels, out, NULL);
}

void
assert_bits_equal (const gfloat *a, const gfloat *b, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    fail_unless (memcmp (&a[i], &b[i], 4) == 0,
        "value %" G_GSIZE_FORMAT ": %.9g != %.9g", i, a[i], b[i]);
}

GBytes *
export_state (GstElement *element, const gchar *pad)
{
  GBytes *bytes = NULL;

  g_signal_emit_by_name (element, "export-state", pad, &bytes);
  return bytes;
}

gboolean
import_state (GstElement *element, const gchar *pad, GBytes *bytes)
{
  gboolean ok = FALSE;

  g_signal_emit_by_name (element, "import-state", pad, bytes, &ok);
  return ok;
}

/* The hidden section of a snapshot as F32 (caller frees). */
gfloat *
snapshot_hidden (GBytes *bytes, gsize *n_values)
{
  RnnStateSnapshot *snap
      = rnn_state_snapshot_parse (g_bytes_get_data (bytes, NULL),
          g_bytes_get_size (bytes), NULL);
  const RnnStateDescriptor *desc;
  gfloat *values;

  fail_unless (snap != NULL);
  desc = rnn_state_snapshot_get_descriptor (snap);
  *n_values = rnn_state_descriptor_n_values (desc);
  values = g_new (gfloat, *n_values);
  rnn_state_dequantize (desc, rnn_state_snapshot_get_hidden (snap), values);
  rnn_state_snapshot_free (snap);
  return values;
}

/* Two snapshots hold the same state (hidden and history); the generation
 * counter in the header may differ. */
gboolean
snapshot_content_equal (GBytes *a, GBytes *b)
{
  RnnStateSnapshot *sa = rnn_state_snapshot_parse (g_bytes_get_data (a, NULL),
      g_bytes_get_size (a), NULL);
  RnnStateSnapshot *sb = rnn_state_snapshot_parse (g_bytes_get_data (b, NULL),
      g_bytes_get_size (b), NULL);
  const RnnStateDescriptor *da = rnn_state_snapshot_get_descriptor (sa);
  gboolean equal;

  equal = rnn_state_descriptor_equal (da,
              rnn_state_snapshot_get_descriptor (sb), NULL)
      && memcmp (rnn_state_snapshot_get_hidden (sa),
             rnn_state_snapshot_get_hidden (sb),
             rnn_state_descriptor_hidden_bytes (da))
          == 0
      && memcmp (rnn_state_snapshot_get_history (sa),
             rnn_state_snapshot_get_history (sb),
             (gsize) da->history_size * sizeof (gfloat))
          == 0;
  rnn_state_snapshot_free (sa);
  rnn_state_snapshot_free (sb);
  return equal;
}

/* What a snapshot says about the stream: its bytes without the generation
 * (offset 48, 8 bytes) and the checksum, so that two snapshots of the same
 * whole state (hidden and history) give equal keys. */
GBytes *
content_of (GBytes *snapshot)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (snapshot, &size);
  guint8 *key;

  fail_unless (size > 60);
  key = g_malloc (size - 12);
  memcpy (key, data, 48);
  memcpy (key + 48, data + 56, size - 60);
  return g_bytes_new_take (key, size - 12);
}

GBytes *
snapshot_content (GstElement *element)
{
  GBytes *snap = export_state (element, "sink"), *content;

  fail_unless (snap != NULL);
  content = content_of (snap);
  g_bytes_unref (snap);
  return content;
}

gboolean
all_zero (const gfloat *v, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    if (v[i] != 0.0f)
      return FALSE;
  return TRUE;
}

GBytes *
mono_snapshot (void)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (HOP, 1, 12);
  GBytes *snap;

  push_signal (h, x, HOP, 1, HOP, 0);
  snap = export_state (h->element, "sink");
  g_free (x);
  gst_harness_teardown (h);
  return snap;
}
