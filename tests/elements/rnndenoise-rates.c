/* rnndenoise — element tests: one model per sample rate, picked by the caps
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnndenoise-helpers.h"
#include "tests/unit/model_helper.h"

#define RATE_16K 16000
#define LATENCY_16K 480 /* 30 ms: the 16 kHz model reads one frame ahead */
#define F32_16K_CAPS(ch) \
  "audio/x-raw,format=F32LE,layout=interleaved,rate=16000,channels=" #ch

static DspModel *
load_model_16k (void)
{
  return load_model_from_env ("RNNDENOISE_MODEL_16K");
}

/* @model's output for @x, drained: the reference the element must match
 * bit for bit. */
static guint
model_output (DspModel *model, const gfloat *x, guint n, guint channels,
    gfloat **out)
{
  DspProcessor *p = dsp_processor_new (model, channels, NULL);
  guint produced, latency = dsp_processor_get_latency (p);

  *out = g_new0 (gfloat, (gsize) (n + latency) * channels);
  produced = dsp_processor_process (p, x, *out, n, NULL, NULL, 0, NULL);
  produced += dsp_processor_drain (p, *out + (gsize) produced * channels);
  dsp_processor_free (p);
  return produced;
}

/* Pushes @n samples of @x in buffers of @chunk samples, timestamped from
 * @first_sample at @rate Hz. */
static void
push_at_rate (GstHarness *h, const gfloat *x, guint n, guint channels,
    guint chunk, guint rate, guint64 first_sample)
{
  guint done = 0;

  while (done < n) {
    guint m = MIN (chunk, n - done);
    GstBuffer *buf = gst_buffer_new_memdup (x + (gsize) done * channels,
        (gsize) m * channels * 4);

    GST_BUFFER_PTS (buf)
        = gst_util_uint64_scale_int (first_sample + done, GST_SECOND, rate);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    done += m;
  }
}

static gboolean
caps_take_rate (GstCaps *caps, gint rate)
{
  GstCaps *want
      = gst_caps_new_simple ("audio/x-raw", "rate", G_TYPE_INT, rate, NULL);
  gboolean ok = gst_caps_can_intersect (caps, want);

  gst_caps_unref (want);
  return ok;
}

/* The templates offer the rates of the built-in models, and the caps query
 * after READY->PAUSED the rates of the loaded ones: both built in, or the
 * model file's only. */
GST_START_TEST (test_caps_rates_of_loaded_models)
{
  const gchar *files[] = { NULL, "RNNDENOISE_MODEL", "RNNDENOISE_MODEL_16K" };
  const gboolean takes_48k[] = { TRUE, TRUE, FALSE };
  const gboolean takes_16k[] = { TRUE, FALSE, TRUE };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (files); i++) {
    GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
    GstPad *sink = gst_element_get_static_pad (e, "sink");
    GstCaps *caps = gst_pad_get_pad_template_caps (sink);

    fail_unless (caps_take_rate (caps, 48000) && caps_take_rate (caps, 16000)
            && !caps_take_rate (caps, 44100),
        "%" GST_PTR_FORMAT, caps);
    gst_caps_unref (caps);
    if (files[i] != NULL)
      g_object_set (e, "model", g_getenv (files[i]), NULL);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_SUCCESS);
    caps = gst_pad_query_caps (sink, NULL);
    fail_unless_equals_int (caps_take_rate (caps, 48000), takes_48k[i]);
    fail_unless_equals_int (caps_take_rate (caps, 16000), takes_16k[i]);
    fail_if (caps_take_rate (caps, 44100));
    gst_caps_unref (caps);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* A 16 kHz stream runs the 16 kHz model: the output is that model's, bit
 * for bit, with as many samples as went in; the latency is 30 ms as at
 * 48 kHz (both models read one frame ahead). */
GST_START_TEST (test_16k_stream_runs_16k_model)
{
  guint n = 8000, channels = 2;
  gfloat *x = make_signal (n, channels, 21), *got, *want;
  DspModel *model = load_model_16k ();
  GstHarness *h = new_stream_harness (F32_16K_CAPS (2));
  guint n_got, n_want;
  GBytes *snap;
  RnnStateSnapshot *parsed;

  push_at_rate (h, x, n, channels, 333, RATE_16K, 0);
  snap = export_state (h->element, "sink");
  parsed = rnn_state_snapshot_parse (g_bytes_get_data (snap, NULL),
      g_bytes_get_size (snap), NULL);
  fail_unless (parsed != NULL);
  fail_unless (rnn_state_snapshot_get_descriptor (parsed)->model_id
      == dsp_model_get_id (model));
  fail_unless_equals_uint64 (gst_harness_query_latency (h), 30 * GST_MSECOND);

  gst_harness_push_event (h, gst_event_new_eos ());
  n_got = pull_at_rate (h, channels, &got, 0, RATE_16K);
  n_want = model_output (model, x, n, channels, &want);
  fail_unless_equals_int (n_got, n);
  fail_unless_equals_int (n_want, n);
  assert_bits_equal (want, got, (gsize) n * channels);

  rnn_state_snapshot_free (parsed);
  g_bytes_unref (snap);
  gst_harness_teardown (h);
  dsp_model_unref (model);
  g_free (x);
  g_free (got);
  g_free (want);
}

GST_END_TEST;

/* A 16 kHz snapshot imported before caps makes a stream of the 16 kHz
 * model (the snapshot names it), which 16 kHz caps keep and continue
 * bit-exactly; 48 kHz caps drop it with a warning and start afresh with
 * the 48 kHz model. */
GST_START_TEST (test_import_before_caps_picks_model)
{
  guint n = 6000, split = 2500, channels = 1;
  gfloat *x = make_signal (n, channels, 22), *whole, *part1, *part2;
  GstHarness *ref = new_stream_harness (F32_16K_CAPS (1));
  GstHarness *h1 = new_stream_harness (F32_16K_CAPS (1));
  GstHarness *h2 = gst_harness_new ("rnndenoise");
  GstHarness *h3 = gst_harness_new ("rnndenoise");
  guint n_first, n_second;
  GstMessage *msg;
  GstBus *bus = gst_bus_new ();
  GBytes *snap;

  push_at_rate (ref, x, n, channels, 500, RATE_16K, 0);
  gst_harness_push_event (ref, gst_event_new_eos ());
  fail_unless_equals_int (pull_at_rate (ref, channels, &whole, 0, RATE_16K), n);

  push_at_rate (h1, x, split, channels, 500, RATE_16K, 0);
  n_first = pull_at_rate (h1, channels, &part1, 0, RATE_16K);
  snap = export_state (h1->element, "sink");

  fail_unless (import_state (h2->element, "sink", snap));
  gst_harness_set_src_caps_str (h2, F32_16K_CAPS (1));
  push_at_rate (h2, x + split, n - split, channels, 500, RATE_16K, split);
  gst_harness_push_event (h2, gst_event_new_eos ());
  n_second = pull_at_rate (h2, channels, &part2, n_first, RATE_16K);
  fail_unless_equals_int (n_first + n_second, n);
  assert_bits_equal (whole, part1, n_first);
  assert_bits_equal (whole + n_first, part2, n_second);
  g_free (part2);

  gst_element_set_bus (h3->element, bus);
  fail_unless (import_state (h3->element, "sink", snap));
  gst_harness_set_src_caps_str (h3, F32_CAPS (1));
  push_signal (h3, x, 960, channels, 480, 0);
  gst_harness_push_event (h3, gst_event_new_eos ());
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning for the dropped 16 kHz state");
  gst_message_unref (msg);
  fail_unless_equals_int (pull_all (h3, channels, &part2, 0), 960);

  gst_element_set_bus (h3->element, NULL);
  gst_object_unref (bus);
  g_bytes_unref (snap);
  gst_harness_teardown (ref);
  gst_harness_teardown (h1);
  gst_harness_teardown (h2);
  gst_harness_teardown (h3);
  g_free (x);
  g_free (whole);
  g_free (part1);
  g_free (part2);
}

GST_END_TEST;

/* The model-id of the state pad's current caps, as a number. */
static guint64
state_caps_model_id (GstHarness *hs)
{
  GstCaps *caps = gst_pad_get_current_caps (hs->sinkpad);
  const gchar *id;
  guint64 value;

  fail_unless (caps != NULL);
  id = gst_structure_get_string (gst_caps_get_structure (caps, 0), "model-id");
  fail_unless (id != NULL);
  value = g_ascii_strtoull (id, NULL, 16);
  gst_caps_unref (caps);
  return value;
}

/* Caps from 48 kHz to 16 kHz mid-stream: the 48 kHz part is drained, then
 * the 16 kHz part runs the 16 kHz model from its initial state; each part
 * is its model's output bit for bit, and the state pad's caps name the
 * model of the part. */
GST_START_TEST (test_rate_change_switches_model)
{
  guint n48 = 4800, n16 = 3200, channels = 1;
  gfloat *x48 = make_signal (n48, channels, 23);
  gfloat *x16 = make_signal (n16, channels, 24);
  gfloat *got, *want48, *want16;
  DspModel *m48 = load_model (), *m16 = load_model_16k ();
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  guint n_got;

  gst_harness_set_sink_caps_str (hs, "application/x-rnn-state,format=F32LE");
  push_at_rate (h, x48, n48, channels, 700, RATE, 0);
  fail_unless (state_caps_model_id (hs) == dsp_model_get_id (m48));
  gst_harness_set_src_caps_str (h, F32_16K_CAPS (1));
  push_at_rate (h, x16, n16, channels, 700, RATE_16K, 0);
  fail_unless (state_caps_model_id (hs) == dsp_model_get_id (m16));
  gst_harness_push_event (h, gst_event_new_eos ());
  /* No timestamp check: each part's timestamps start again at 0. */
  n_got = pull_at_rate (h, channels, &got, 0, 0);

  fail_unless_equals_int (n_got, n48 + n16);
  fail_unless_equals_int (model_output (m48, x48, n48, channels, &want48), n48);
  fail_unless_equals_int (model_output (m16, x16, n16, channels, &want16), n16);
  assert_bits_equal (want48, got, n48);
  assert_bits_equal (want16, got + n48, n16);

  gst_harness_teardown (hs);
  gst_harness_teardown (h);
  dsp_model_unref (m48);
  dsp_model_unref (m16);
  g_free (x48);
  g_free (x16);
  g_free (got);
  g_free (want48);
  g_free (want16);
}

GST_END_TEST;

/* A harness whose element runs the model file @path, low-latency or not
 * (both change only before the element starts). */
static GstHarness *
new_model_file_harness (const gchar *path, gboolean low_latency)
{
  return new_harness_with (F32_CAPS (2), "model", path, "low-latency",
      low_latency, NULL);
}

/* A model file whose network reads two frames ahead: the element takes its
 * latency from the processor, 10 ms more than the built-in models' (40
 * ms, 30 ms with low-latency and whole frames), and gives the processor's
 * samples bit for bit, as many as went in. */
GST_START_TEST (test_lookahead_model_file)
{
  guint n = 9600, channels = 2, k;
  gfloat *x = make_signal (n, channels, 23), *want = NULL;
  gchar *path = NULL;
  ModelHelperSpec spec;
  DspModel *model;
  GBytes *bytes;
  gint fd;

  model_helper_spec_init_lookahead (&spec, DSP_WEIGHT_F32, 31, 2);
  bytes = model_helper_build (&spec);
  model = dsp_model_new_from_bytes (bytes, NULL);
  fail_unless (model != NULL);
  fd = g_file_open_tmp ("rnndenoise-lookahead-XXXXXX.rnnm", &path, NULL);
  fail_unless (fd >= 0);
  g_close (fd, NULL);
  fail_unless (g_file_set_contents (path, g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL));
  fail_unless_equals_int (model_output (model, x, n, channels, &want), n);

  for (k = 0; k < 2; k++) {
    GstHarness *h = new_model_file_harness (path, k == 1);
    gfloat *got;

    push_signal (h, x, n, channels, k == 1 ? HOP : 333, 0);
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        (k == 1 ? 30 : 40) * GST_MSECOND);
    gst_harness_push_event (h, gst_event_new_eos ());
    fail_unless_equals_int (pull_all (h, channels, &got, 0), n);
    assert_bits_equal (want, got, (gsize) n * channels);
    g_free (got);
    gst_harness_teardown (h);
  }

  g_unlink (path);
  g_free (path);
  g_free (want);
  g_free (x);
  g_bytes_unref (bytes);
  dsp_model_unref (model);
}

GST_END_TEST;

void
rnndenoise_add_rate_tests (Suite *s)
{
  TCase *tc = tcase_create ("rates");

  tcase_add_test (tc, test_caps_rates_of_loaded_models);
  tcase_add_test (tc, test_16k_stream_runs_16k_model);
  tcase_add_test (tc, test_import_before_caps_picks_model);
  tcase_add_test (tc, test_rate_change_switches_model);
  tcase_add_test (tc, test_lookahead_model_file);
  suite_add_tcase (s, tc);
}
