/* rnndenoise — element tests (gst-check + GstHarness)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reference outputs come from the dsp library run directly on the same
 * model file the plugin embeds (RNNDENOISE_MODEL), so "bit-identical" here
 * means: the element adds nothing to and loses nothing from the processor.
 * Run one test with GST_CHECKS=test_name.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>

#include "dsp/dsp_model.h"
#include "dsp/dsp_processor.h"
#include "state/rnn_state_quant.h"
#include "state/rnn_state_snapshot.h"

#define RATE 48000
#define HOP 480
#define LATENCY (2 * HOP)
#define F32_CAPS(ch) \
  "audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=" #ch
#define S16_CAPS(ch) \
  "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=" #ch

/* ---------------------------------------------------------------------
 * Helpers
 * --------------------------------------------------------------------- */

static DspModel *
load_model (void)
{
  const gchar *path = g_getenv ("RNNDENOISE_MODEL");
  GError *error = NULL;
  DspModel *model;

  fail_unless (path != NULL, "RNNDENOISE_MODEL is not set");
  model = dsp_model_new_from_file (path, &error);
  fail_unless (model != NULL, "%s", error ? error->message : "");
  return model;
}

/* Noisy, speech-like test signal, different per channel and seed. */
static gfloat *
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

static GstBuffer *
f32_buffer (const gfloat *x, guint n, guint channels, guint64 first_sample)
{
  GstBuffer *buf = gst_buffer_new_memdup (x, (gsize) n * channels * 4);

  GST_BUFFER_PTS (buf)
      = gst_util_uint64_scale_int (first_sample, GST_SECOND, RATE);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (n, GST_SECOND, RATE);
  return buf;
}

/* A harness on sink_N/src_N of a new element, caps set, playing. */
static GstHarness *
new_stream_harness (const gchar *caps)
{
  GstHarness *h
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");

  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* Pushes @n samples of @x in buffers of @chunk samples. */
static void
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
 * channel and checks that timestamps follow the samples. */
static guint
pull_all (GstHarness *h, guint channels, gfloat **out, guint64 first_sample)
{
  GByteArray *acc = g_byte_array_new ();
  GstBuffer *buf;
  guint n;

  while ((buf = gst_harness_try_pull (h)) != NULL) {
    GstMapInfo map;
    guint64 index = first_sample + acc->len / (4 * channels);

    /* Within 1 ns: the element counts from its first timestamp. */
    if (GST_BUFFER_PTS_IS_VALID (buf)) {
      gint64 expected = gst_util_uint64_scale_int (index, GST_SECOND, RATE);
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

/* The reference: the same model through DspProcessor, drained; its final
 * state goes to @state when not NULL. */
static guint
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

static guint
reference_output (const gfloat *x, guint n, guint channels, gfloat **out)
{
  return reference_run (x, n, channels, out, NULL);
}

static void
assert_bits_equal (const gfloat *a, const gfloat *b, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    fail_unless (memcmp (&a[i], &b[i], 4) == 0,
        "value %" G_GSIZE_FORMAT ": %.9g != %.9g", i, a[i], b[i]);
}

static GBytes *
export_state (GstElement *element, const gchar *pad)
{
  GBytes *bytes = NULL;

  g_signal_emit_by_name (element, "export-state", pad, &bytes);
  return bytes;
}

static gboolean
import_state (GstElement *element, const gchar *pad, GBytes *bytes)
{
  gboolean ok = FALSE;

  g_signal_emit_by_name (element, "import-state", pad, bytes, &ok);
  return ok;
}

/* The hidden section of a snapshot as F32 (caller frees). */
static gfloat *
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
static gboolean
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
static GBytes *
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

static GBytes *
snapshot_content (GstElement *element)
{
  GBytes *snap = export_state (element, "sink_0"), *content;

  fail_unless (snap != NULL);
  content = content_of (snap);
  g_bytes_unref (snap);
  return content;
}

static gboolean
all_zero (const gfloat *v, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    if (v[i] != 0.0f)
      return FALSE;
  return TRUE;
}

/* ---------------------------------------------------------------------
 * Output, counts, timestamps, latency
 * --------------------------------------------------------------------- */

GST_START_TEST (test_output_matches_processor)
{
  guint n = RATE, channels = 2, got, expected;
  gfloat *x = make_signal (n, channels, 1), *y, *ref;
  GstHarness *h = new_stream_harness (F32_CAPS (2));

  push_signal (h, x, n, channels, 1024, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  got = pull_all (h, channels, &y, 0);
  expected = reference_output (x, n, channels, &ref);
  fail_unless_equals_int (got, n);
  fail_unless_equals_int (expected, n);
  assert_bits_equal (ref, y, (gsize) n * channels);

  g_free (x);
  g_free (y);
  g_free (ref);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Table: buffer sizes; EOS drains the tail so that the output has exactly
 * as many samples as the input, whatever the buffering. */
static const guint eos_buffer_sizes[] = { 1, 479, 480, 481, 4096 };

GST_START_TEST (test_eos_exact_sample_count)
{
  guint chunk = eos_buffer_sizes[__i__];
  guint n = chunk == 1 ? 3000 : 12345, got;
  gfloat *x = make_signal (n, 1, 2), *y;
  GstHarness *h = new_stream_harness (F32_CAPS (1));

  push_signal (h, x, n, 1, chunk, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  got = pull_all (h, 1, &y, 0);
  fail_unless_equals_int (got, n);
  g_free (x);
  g_free (y);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_s16_round_trip_count)
{
  GstHarness *h = new_stream_harness (S16_CAPS (1));
  GstBuffer *buf;
  guint total = 0, k;

  for (k = 0; k < 10; k++) {
    buf = gst_buffer_new_allocate (NULL, 2 * 700, NULL);
    gst_buffer_memset (buf, 0, 0, 2 * 700);
    GST_BUFFER_PTS (buf)
        = gst_util_uint64_scale_int (700 * k, GST_SECOND, RATE);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((buf = gst_harness_try_pull (h)) != NULL) {
    total += gst_buffer_get_size (buf) / 2;
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (total, 7000);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_latency_query)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstClockTime latency = gst_harness_query_latency (h);

  /* The harness's source answers 0: the rest is ours, exactly 20 ms. */
  fail_unless_equals_uint64 (latency, 20 * GST_MSECOND);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_empty_and_odd_buffers)
{
  GstHarness *h = new_stream_harness (S16_CAPS (1));
  GstBuffer *buf;
  gfloat *y;

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new ()), GST_FLOW_OK);
  /* 3 bytes of S16: one sample and a dropped byte, with a warning. */
  buf = gst_buffer_new_allocate (NULL, 3, NULL);
  gst_buffer_memset (buf, 0, 0, 3);
  GST_BUFFER_PTS (buf) = 0;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  gst_harness_push_event (h, gst_event_new_eos ());
  /* One sample in, one sample out (S16, 2 bytes). */
  buf = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (buf), 2);
  gst_buffer_unref (buf);
  (void) y;
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_nonfinite_input_warns_and_recovers)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (4800, 1, 3), *y;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  guint got, i;

  gst_element_set_bus (h->element, bus);
  x[10] = NAN;
  x[2000] = INFINITY;
  x[2001] = -INFINITY;
  push_signal (h, x, 4800, 1, 960, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  got = pull_all (h, 1, &y, 0);
  fail_unless_equals_int (got, 4800);
  for (i = 0; i < got; i++)
    fail_unless (isfinite (y[i]));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  g_free (x);
  g_free (y);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Odd streams: one 10 s buffer, a DISCONT on every buffer, timestamps
 * going backwards, full-scale square waves and DC. Every case keeps one
 * output sample per input sample and finite output. */
typedef enum
{
  ODD_HUGE_BUFFER,
  ODD_DISCONT_STORM,
  ODD_BACKWARDS_TIME,
  ODD_SQUARE_WAVE,
  ODD_DC,
} OddStream;

GST_START_TEST (test_odd_streams)
{
  OddStream what = (OddStream) __i__;
  guint n = what == ODD_HUGE_BUFFER ? 10 * RATE : 48000, chunk, k, got, i;
  gfloat *x = make_signal (n, 1, 19), *y;
  GstHarness *h = new_stream_harness (F32_CAPS (1));

  if (what == ODD_SQUARE_WAVE)
    for (i = 0; i < n; i++)
      x[i] = (i / 55) % 2 ? 1.0f : -1.0f;
  if (what == ODD_DC)
    for (i = 0; i < n; i++)
      x[i] = 0.9f;
  chunk = what == ODD_HUGE_BUFFER ? n : 700;
  for (k = 0; k * chunk < n; k++) {
    guint m = MIN (chunk, n - k * chunk);
    /* Backwards: each buffer stamped earlier than the one before. */
    guint64 stamp = what == ODD_BACKWARDS_TIME ? n - k * chunk : k * chunk;
    GstBuffer *buf = f32_buffer (x + k * chunk, m, 1, stamp);

    if (what == ODD_DISCONT_STORM)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  if (what == ODD_BACKWARDS_TIME || what == ODD_DISCONT_STORM) {
    GstBuffer *buf;

    /* Timestamps follow each segment of input: count samples only. */
    got = 0;
    while ((buf = gst_harness_try_pull (h)) != NULL) {
      got += gst_buffer_get_size (buf) / 4;
      gst_buffer_unref (buf);
    }
    fail_unless_equals_int (got, n);
  } else {
    got = pull_all (h, 1, &y, 0);
    fail_unless_equals_int (got, n);
    for (i = 0; i < got; i++)
      fail_unless (isfinite (y[i]) && fabsf (y[i]) < 4.0f);
    g_free (y);
  }
  g_free (x);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Output timestamps follow a jump in the input's time (here without a
 * DISCONT flag), and the first output buffer and the one after the jump
 * carry DISCONT. */
GST_START_TEST (test_time_jump_and_discont_flags)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (20 * HOP, 1, 24);
  GstBuffer *out;
  guint k;
  guint64 jump = RATE; /* one second later */

  for (k = 0; k < 4; k++)
    push_signal (h, x + k * HOP, HOP, 1, HOP, (guint64) k * HOP);
  /* Buffers 0 and 1 are pre-roll: the first output comes with buffer 2. */
  out = gst_harness_pull (h);
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 0);
  gst_buffer_unref (out);
  out = gst_harness_pull (h);
  fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
  gst_buffer_unref (out);

  push_signal (h, x + 4 * HOP, HOP, 1, HOP, jump + 4 * HOP);
  out = gst_harness_pull (h);
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
  /* The output lags 20 ms behind the input's new time. */
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out),
      gst_util_uint64_scale_int (jump + 4 * HOP - LATENCY, GST_SECOND, RATE));
  gst_buffer_unref (out);
  g_free (x);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_gap_passes_through)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstEvent *event;
  gboolean found = FALSE;

  gst_harness_push_event (h, gst_event_new_gap (0, GST_SECOND));
  while ((event = gst_harness_try_pull_event (h)) != NULL) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_GAP)
      found = TRUE;
    gst_event_unref (event);
  }
  fail_unless (found);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * State: persistence, state pad, fan-out
 * --------------------------------------------------------------------- */

GST_START_TEST (test_persistence_and_reset)
{
  GstHarness *a = new_stream_harness (F32_CAPS (1));
  GstHarness *b = new_stream_harness (F32_CAPS (1));
  GstHarness *fresh = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (2 * HOP, 1, 4), *sa, *sb;
  gboolean found;
  GBytes *state_a, *state_b, *state_fresh, *initial;
  gsize n;

  /* a: buffer 1, buffer 2. b: buffer 1, reset, buffer 2. */
  push_signal (a, x, HOP, 1, HOP, 0);
  push_signal (a, x + HOP, HOP, 1, HOP, HOP);
  push_signal (b, x, HOP, 1, HOP, 0);
  g_signal_emit_by_name (b->element, "reset", "sink_0", &found);
  fail_unless (found);
  /* The whole state is the initial one: hidden state and DSP history. */
  initial = export_state (fresh->element, "sink_0");
  state_b = export_state (b->element, "sink_0");
  fail_unless (snapshot_content_equal (state_b, initial));
  g_bytes_unref (state_b);
  push_signal (b, x + HOP, HOP, 1, HOP, HOP);
  push_signal (fresh, x + HOP, HOP, 1, HOP, HOP);

  state_a = export_state (a->element, "sink_0");
  state_b = export_state (b->element, "sink_0");
  state_fresh = export_state (fresh->element, "sink_0");
  fail_unless (snapshot_content_equal (state_b, state_fresh));
  sa = snapshot_hidden (state_a, &n);
  sb = snapshot_hidden (state_b, &n);
  fail_if (memcmp (sa, sb, n * 4) == 0, "reset made no difference");
  fail_if (all_zero (sa, n));
  g_bytes_unref (initial);
  g_bytes_unref (state_fresh);

  g_signal_emit_by_name (b->element, "reset", "no_such_pad", &found);
  fail_if (found);
  g_free (sa);
  g_free (sb);
  g_bytes_unref (state_a);
  g_bytes_unref (state_b);
  g_free (x);
  gst_harness_teardown (a);
  gst_harness_teardown (b);
  gst_harness_teardown (fresh);
}

GST_END_TEST;

/* State buffer k equals export-state's hidden section after buffer k, and is
 * timestamped like its audio with offset k. */
GST_START_TEST (test_state_pad_matches_export_state)
{
  GstHarness *h = new_stream_harness (F32_CAPS (2));
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  gfloat *x = make_signal (10 * HOP, 2, 5), *hidden;
  GstBuffer *sbuf;
  GstMapInfo map;
  GBytes *snap;
  gsize n;
  guint k;

  gst_harness_set_sink_caps_str (hs, "application/x-rnn-state,format=F32LE");
  for (k = 0; k < 10; k++) {
    push_signal (h, x + (gsize) k * HOP * 2, HOP, 2, HOP, (guint64) k * HOP);
    sbuf = gst_harness_pull (hs);
    snap = export_state (h->element, "sink_0");
    hidden = snapshot_hidden (snap, &n);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (sbuf), k);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (sbuf),
        gst_util_uint64_scale_int ((guint64) k * HOP, GST_SECOND, RATE));
    gst_buffer_map (sbuf, &map, GST_MAP_READ);
    fail_unless_equals_int (map.size, n * 4);
    fail_unless (memcmp (map.data, hidden, n * 4) == 0);
    gst_buffer_unmap (sbuf, &map);
    gst_buffer_unref (sbuf);
    g_bytes_unref (snap);
    g_free (hidden);
  }
  g_free (x);
  gst_harness_teardown (hs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A buffer that completes no frame gives no state buffer. */
GST_START_TEST (test_state_only_after_frames)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  gfloat *x = make_signal (HOP, 1, 6);

  push_signal (h, x, 100, 1, 100, 0);
  fail_unless_equals_int (gst_harness_buffers_in_queue (hs), 0);
  push_signal (h, x + 100, 380, 1, 380, 100);
  fail_unless_equals_int (gst_harness_buffers_in_queue (hs), 1);
  g_free (x);
  gst_harness_teardown (hs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A state buffer kept downstream never changes, however many buffers
 * follow; S16/S8 state formats equal the F32 state within one step. */
static const gchar *const state_formats[] = { "F32LE", "S16LE", "S8" };

GST_START_TEST (test_state_immutable_and_formats)
{
  const gchar *format = state_formats[__i__];
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  gfloat *x = make_signal (102 * HOP, 1, 7), *hidden;
  GstBuffer *kept, *sbuf;
  GstMapInfo map;
  guint8 *copy;
  GBytes *snap;
  gsize n, i;
  gchar *caps = g_strdup_printf ("application/x-rnn-state,format=%s", format);
  RnnStateDescriptor desc;
  gfloat *values;
  const GstStructure *s;
  GstCaps *negotiated;
  gdouble scale;

  gst_harness_set_sink_caps_str (hs, caps);
  push_signal (h, x, HOP, 1, HOP, 0);
  kept = gst_harness_pull (hs);
  snap = export_state (h->element, "sink_0");
  hidden = snapshot_hidden (snap, &n);

  negotiated = gst_pad_get_current_caps (hs->sinkpad);
  s = gst_caps_get_structure (negotiated, 0);
  fail_unless_equals_string (gst_structure_get_string (s, "format"), format);
  fail_unless (gst_structure_get_double (s, "scale", &scale));
  {
    RnnStateSnapshot *parsed
        = rnn_state_snapshot_parse (g_bytes_get_data (snap, NULL),
            g_bytes_get_size (snap), NULL);
    desc = *rnn_state_snapshot_get_descriptor (parsed);
    rnn_state_snapshot_free (parsed);
  }
  rnn_state_descriptor_set_element_type (&desc,
      g_str_equal (format, "F32LE")       ? RNN_STATE_ELEMENT_F32
          : g_str_equal (format, "S16LE") ? RNN_STATE_ELEMENT_S16
                                          : RNN_STATE_ELEMENT_S8,
      1.0f);
  gst_caps_unref (negotiated);

  gst_buffer_map (kept, &map, GST_MAP_READ);
  fail_unless_equals_int (map.size, rnn_state_descriptor_hidden_bytes (&desc));
  copy = g_memdup2 (map.data, map.size);
  values = g_new (gfloat, n);
  rnn_state_dequantize (&desc, map.data, values);
  for (i = 0; i < n; i++) {
    if (desc.element_type == RNN_STATE_ELEMENT_F32)
      fail_unless (memcmp (&values[i], &hidden[i], 4) == 0);
    else
      fail_unless (fabsf (values[i] - hidden[i]) <= (gfloat) scale * 1.0001f,
          "value %" G_GSIZE_FORMAT ": %g vs %g", i, values[i], hidden[i]);
  }
  gst_buffer_unmap (kept, &map);

  /* 100 more buffers, their state buffers dropped as they come. */
  push_signal (h, x + HOP, 100 * HOP, 1, HOP, HOP);
  while ((sbuf = gst_harness_try_pull (hs)) != NULL)
    gst_buffer_unref (sbuf);
  gst_buffer_map (kept, &map, GST_MAP_READ);
  fail_unless (memcmp (map.data, copy, map.size) == 0);
  gst_buffer_unmap (kept, &map);

  gst_buffer_unref (kept);
  g_bytes_unref (snap);
  g_free (copy);
  g_free (values);
  g_free (hidden);
  g_free (caps);
  g_free (x);
  gst_harness_teardown (hs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* State buffers come from a pool: once downstream lets go of them they are
 * reused, so steady state allocates no state buffer. */
GST_START_TEST (test_state_buffers_recycled)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  gfloat *x = make_signal (20 * HOP, 1, 16);
  GPtrArray *seen = g_ptr_array_new ();
  guint k, reused = 0;

  for (k = 0; k < 20; k++) {
    GstBuffer *sbuf;

    push_signal (h, x + k * HOP, HOP, 1, HOP, (guint64) k * HOP);
    sbuf = gst_harness_pull (hs);
    if (g_ptr_array_find (seen, sbuf, NULL))
      reused++;
    else
      g_ptr_array_add (seen, sbuf);
    gst_buffer_unref (sbuf);
  }
  fail_unless (seen->len <= 3, "%u distinct state buffers", seen->len);
  fail_unless (reused >= 17);
  g_ptr_array_unref (seen);
  g_free (x);
  gst_harness_teardown (hs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Contract point 2 in numbers: every buffer is written back into the slot,
 * linked state pad or not; only the side copy depends on the link. */
GST_START_TEST (test_state_stats)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  GstHarness *u = new_stream_harness (F32_CAPS (1));
  GstPad *sinkpad = gst_element_get_static_pad (h->element, "sink_0");
  GstPad *unlinked = gst_element_get_static_pad (u->element, "sink_0");
  gfloat *x = make_signal (10 * HOP, 1, 18);
  GstStructure *linked_stats, *unlinked_stats;
  guint64 inv, side, written, copies;

  push_signal (h, x, 10 * HOP, 1, HOP, 0);
  push_signal (u, x, 10 * HOP, 1, HOP, 0);
  g_object_get (sinkpad, "state-stats", &linked_stats, NULL);
  g_object_get (unlinked, "state-stats", &unlinked_stats, NULL);
  fail_unless (linked_stats != NULL && unlinked_stats != NULL);

  fail_unless (gst_structure_get_uint64 (linked_stats, "invocations", &inv));
  fail_unless (
      gst_structure_get_uint64 (linked_stats, "bytes-side-copied", &side));
  fail_unless (
      gst_structure_get_uint64 (linked_stats, "bytes-written-back", &written));
  fail_unless (gst_structure_get_uint64 (linked_stats, "copies", &copies));
  fail_unless_equals_uint64 (inv, 10);
  fail_unless (side > 0 && side % 10 == 0);
  /* One read, one writeback and one side copy per buffer. */
  fail_unless_equals_uint64 (copies, 30);

  fail_unless (gst_structure_get_uint64 (unlinked_stats, "invocations", &inv));
  fail_unless_equals_uint64 (inv, 10);
  fail_unless (
      gst_structure_get_uint64 (unlinked_stats, "bytes-written-back", &side));
  fail_unless_equals_uint64 (side, written);
  fail_unless (
      gst_structure_get_uint64 (unlinked_stats, "bytes-side-copied", &side));
  fail_unless_equals_uint64 (side, 0);
  fail_unless (gst_structure_get_uint64 (unlinked_stats, "copies", &copies));
  fail_unless_equals_uint64 (copies, 20);

  gst_structure_free (linked_stats);
  gst_structure_free (unlinked_stats);
  gst_object_unref (sinkpad);
  gst_object_unref (unlinked);
  g_free (x);
  gst_harness_teardown (hs);
  gst_harness_teardown (h);
  gst_harness_teardown (u);
}

GST_END_TEST;

/* An unlinked state pad costs nothing and does not stop the audio. */
GST_START_TEST (test_unlinked_state_pad_keeps_audio)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstPad *statepad = gst_element_request_pad_simple (h->element, "state_0");
  gfloat *x = make_signal (4 * HOP, 1, 8), *y;

  fail_unless (statepad != NULL);
  push_signal (h, x, 4 * HOP, 1, HOP, 0);
  fail_unless_equals_int (pull_all (h, 1, &y, 0), 2 * HOP);
  gst_element_release_request_pad (h->element, statepad);
  gst_object_unref (statepad);
  g_free (x);
  g_free (y);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * Resets (contract point 7), each with the event that causes it
 * --------------------------------------------------------------------- */

static gfloat *
hidden_of (GstElement *element, gsize *n)
{
  GBytes *snap = export_state (element, "sink_0");
  gfloat *hidden = snapshot_hidden (snap, n);

  g_bytes_unref (snap);
  return hidden;
}

typedef enum
{
  RESET_FLUSH,
  RESET_STREAM_START,
  RESET_CAPS_CHANGE,
  RESET_SAME_CAPS,
  RESET_SEGMENT,
} ResetCase;

static const struct
{
  ResetCase what;
  gboolean resets;
} reset_cases[] = {
  { RESET_FLUSH, TRUE },
  { RESET_STREAM_START, TRUE },
  { RESET_CAPS_CHANGE, TRUE },
  { RESET_SAME_CAPS, FALSE },
  { RESET_SEGMENT, FALSE },
};

GST_START_TEST (test_reset_events)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  gboolean stereo = reset_cases[__i__].what == RESET_CAPS_CHANGE;
  GstHarness *fresh = new_stream_harness (stereo ? F32_CAPS (2) : F32_CAPS (1));
  gfloat *x = make_signal (4 * HOP, 1, 9), *hidden;
  GBytes *before, *after, *initial;
  GstSegment segment;
  gsize n;

  push_signal (h, x, 4 * HOP, 1, HOP, 0);
  hidden = hidden_of (h->element, &n);
  fail_if (all_zero (hidden, n));
  g_free (hidden);
  before = export_state (h->element, "sink_0");

  switch (reset_cases[__i__].what) {
    case RESET_FLUSH:
      gst_harness_push_event (h, gst_event_new_flush_start ());
      gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));
      break;
    case RESET_STREAM_START:
      gst_harness_push_event (h, gst_event_new_stream_start ("other"));
      break;
    case RESET_CAPS_CHANGE:
      gst_harness_set_src_caps_str (h, F32_CAPS (2));
      break;
    case RESET_SAME_CAPS:
      gst_harness_set_src_caps_str (h, F32_CAPS (1));
      break;
    case RESET_SEGMENT:
      gst_segment_init (&segment, GST_FORMAT_TIME);
      gst_harness_push_event (h, gst_event_new_segment (&segment));
      break;
  }
  hidden = hidden_of (h->element, &n);
  fail_unless_equals_int (all_zero (hidden, n), reset_cases[__i__].resets);
  g_free (hidden);
  /* The whole state, DSP history included: a fresh stream's, or as it
   * was. */
  after = export_state (h->element, "sink_0");
  initial = export_state (fresh->element, "sink_0");
  if (reset_cases[__i__].resets)
    fail_unless (snapshot_content_equal (after, initial));
  else
    fail_unless (snapshot_content_equal (after, before));
  g_bytes_unref (before);
  g_bytes_unref (after);
  g_bytes_unref (initial);
  g_free (x);
  gst_harness_teardown (fresh);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A reset or an import by the application mid-stream replaces the samples
 * inside the element: silence stands in for them, so the output still has
 * one sample per input sample, with continuous timestamps. */
GST_START_TEST (test_midstream_reset_keeps_count)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *other = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (4 * 4800, 1, 17), *y;
  GBytes *fresh;
  gboolean ok;

  /* A fresh stream's state still has its whole pre-roll ahead. */
  fresh = export_state (other->element, "sink_0");
  push_signal (h, x, 4800, 1, 1000, 0);
  g_signal_emit_by_name (h->element, "reset", "sink_0", &ok);
  push_signal (h, x + 4800, 4800, 1, 1000, 4800);
  fail_unless (import_state (h->element, "sink_0", fresh));
  push_signal (h, x + 9600, 4800, 1, 1000, 9600);
  gst_harness_push_event (h, gst_event_new_eos ());
  fail_unless_equals_int (pull_all (h, 1, &y, 0), 14400);
  g_bytes_unref (fresh);
  g_free (x);
  g_free (y);
  gst_harness_teardown (other);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* DISCONT resets unless reset-on-discont=false: after a DISCONT buffer the
 * state equals a fresh stream's after that buffer. */
GST_START_TEST (test_discont)
{
  gboolean reset_on_discont = __i__ == 0;
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *fresh = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (4 * HOP, 1, 10);
  GBytes *a, *b;
  GstBuffer *buf;

  g_object_set (h->element, "reset-on-discont", reset_on_discont, NULL);
  push_signal (h, x, 3 * HOP, 1, HOP, 0);
  buf = f32_buffer (x + 3 * HOP, HOP, 1, 10 * HOP);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  push_signal (fresh, x + 3 * HOP, HOP, 1, HOP, 10 * HOP);

  /* The whole state: hidden state and DSP history. */
  a = export_state (h->element, "sink_0");
  b = export_state (fresh->element, "sink_0");
  fail_unless_equals_int (snapshot_content_equal (a, b), reset_on_discont);
  g_bytes_unref (a);
  g_bytes_unref (b);
  g_free (x);
  gst_harness_teardown (h);
  gst_harness_teardown (fresh);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * Migration: export-state from one element, import-state into another
 * --------------------------------------------------------------------- */

static const guint split_points[] = { 700, 4800, 7777, 12000 };

GST_START_TEST (test_migration_bit_exact)
{
  guint split = split_points[__i__], n = 24000, channels = 2, chunk = 1000;
  gfloat *x = make_signal (n, channels, 11), *whole, *part1, *part2;
  GstHarness *ref = new_stream_harness (F32_CAPS (2));
  GstHarness *h1 = new_stream_harness (F32_CAPS (2));
  GstHarness *h2
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  guint n_whole, n_first, n_second;
  GBytes *snap;

  push_signal (ref, x, n, channels, chunk, 0);
  gst_harness_push_event (ref, gst_event_new_eos ());
  n_whole = pull_all (ref, channels, &whole, 0);
  fail_unless_equals_int (n_whole, n);

  push_signal (h1, x, split, channels, chunk, 0);
  n_first = pull_all (h1, channels, &part1, 0);
  snap = export_state (h1->element, "sink_0");
  fail_unless (snap != NULL);

  /* Set before the stream starts: survives STREAM_START and caps. */
  fail_unless (import_state (h2->element, "sink_0", snap));
  gst_harness_set_src_caps_str (h2, F32_CAPS (2));
  push_signal (h2, x + (gsize) split * channels, n - split, channels, chunk,
      split);
  gst_harness_push_event (h2, gst_event_new_eos ());
  n_second = pull_all (h2, channels, &part2, n_first);

  fail_unless_equals_int (n_first + n_second, n);
  assert_bits_equal (whole, part1, (gsize) n_first * channels);
  assert_bits_equal (whole + (gsize) n_first * channels, part2,
      (gsize) n_second * channels);

  g_bytes_unref (snap);
  g_free (x);
  g_free (whole);
  g_free (part1);
  g_free (part2);
  gst_harness_teardown (ref);
  gst_harness_teardown (h1);
  gst_harness_teardown (h2);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * Refused import-state: one row per reason; the state stays as it was
 * --------------------------------------------------------------------- */

static GBytes *
mono_snapshot (void)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (HOP, 1, 12);
  GBytes *snap;

  push_signal (h, x, HOP, 1, HOP, 0);
  snap = export_state (h->element, "sink_0");
  g_free (x);
  gst_harness_teardown (h);
  return snap;
}

static GBytes *
stereo_snapshot (void)
{
  GstHarness *h = new_stream_harness (F32_CAPS (2));
  GBytes *snap = export_state (h->element, "sink_0");

  gst_harness_teardown (h);
  return snap;
}

static GBytes *
flipped_snapshot (void)
{
  GBytes *snap = mono_snapshot ();
  gsize size;
  guint8 *data = g_bytes_unref_to_data (snap, &size);

  data[size / 2] ^= 0x10;
  return g_bytes_new_take (data, size);
}

static GBytes *
other_model_snapshot (void)
{
  GBytes *snap = mono_snapshot ();
  gsize size;
  guint8 *data = g_bytes_unref_to_data (snap, &size);
  guint32 crc;

  /* Another model id (offset 16), re-sealed with a valid checksum. */
  data[16] ^= 0xff;
  crc = GUINT32_TO_LE (rnn_state_crc32 (data, size - 4));
  memcpy (data + size - 4, &crc, 4);
  return g_bytes_new_take (data, size);
}

/* The mono snapshot with the u32 at @offset replaced by @value and
 * re-sealed with a valid checksum: only the field differs. */
static GBytes *
resealed_snapshot (gsize offset, guint32 value)
{
  GBytes *snap = mono_snapshot ();
  gsize size;
  guint8 *data = g_bytes_unref_to_data (snap, &size);
  guint32 le = GUINT32_TO_LE (value), crc;

  memcpy (data + offset, &le, 4);
  crc = GUINT32_TO_LE (rnn_state_crc32 (data, size - 4));
  memcpy (data + size - 4, &crc, 4);
  return g_bytes_new_take (data, size);
}

static GBytes *
other_version_snapshot (void)
{
  return resealed_snapshot (12, 2);
}

static GBytes *
other_cell_snapshot (void)
{
  return resealed_snapshot (24, RNN_STATE_CELL_TEACH);
}

static GBytes *
bidirectional_snapshot (void)
{
  return resealed_snapshot (28, RNN_STATE_DIRECTION_BIDIRECTIONAL);
}

static GBytes *
unknown_type_snapshot (void)
{
  return resealed_snapshot (40, 9);
}

/* A well-formed snapshot of another layout: the mono snapshot's
 * descriptor with one field edited, zero values. */
typedef enum
{
  EDIT_LAYERS,
  EDIT_HIDDEN,
  EDIT_HISTORY,
} LayoutEdit;

static GBytes *
edited_layout_snapshot (LayoutEdit edit)
{
  GBytes *snap = mono_snapshot ();
  RnnStateSnapshot *parsed
      = rnn_state_snapshot_parse (g_bytes_get_data (snap, NULL),
          g_bytes_get_size (snap), NULL);
  RnnStateDescriptor desc = *rnn_state_snapshot_get_descriptor (parsed);
  gpointer hidden;
  gfloat *history;
  GBytes *out;

  switch (edit) {
    case EDIT_LAYERS:
      desc.n_layers = 1;
      break;
    case EDIT_HIDDEN:
      desc.hidden[1] -= 1;
      break;
    case EDIT_HISTORY:
      desc.history_size -= 1;
      break;
  }
  hidden = g_malloc0 (rnn_state_descriptor_hidden_bytes (&desc));
  history = g_new0 (gfloat, desc.history_size);
  out = rnn_state_snapshot_serialize (&desc, 1, hidden, history);
  g_free (hidden);
  g_free (history);
  rnn_state_snapshot_free (parsed);
  g_bytes_unref (snap);
  return out;
}

static GBytes *
other_layers_snapshot (void)
{
  return edited_layout_snapshot (EDIT_LAYERS);
}

static GBytes *
other_hidden_snapshot (void)
{
  return edited_layout_snapshot (EDIT_HIDDEN);
}

static GBytes *
other_history_snapshot (void)
{
  return edited_layout_snapshot (EDIT_HISTORY);
}

/* One row per reason; the needle is the part of the warning that names
 * the field and the values. */
static const struct
{
  const gchar *pad;
  GBytes *(*make) (void);
  const gchar *needle;
  gboolean before_caps; /* refused before caps too */
} refused_cases[] = {
  { "sink_0", other_version_snapshot, "format version 2", TRUE },
  { "sink_0", other_cell_snapshot, "cell kind teach, stream expects gru",
      TRUE },
  { "sink_0", bidirectional_snapshot,
      "direction bidirectional, stream expects forward", TRUE },
  { "sink_0", other_layers_snapshot, "layer count 1, stream expects 2", TRUE },
  { "sink_0", other_hidden_snapshot,
      "hidden size of layer 1 is 95, stream expects 96", TRUE },
  { "sink_0", other_history_snapshot, "DSP history size", TRUE },
  { "sink_0", unknown_type_snapshot, "unknown element type 9", TRUE },
  { "sink_0", stereo_snapshot, "batch 2, stream expects 1", FALSE },
  { "sink_0", other_model_snapshot, "model id", TRUE },
  { "sink_0", flipped_snapshot, "checksum", TRUE },
  { "sink_0", NULL, "no state given", TRUE },
  { "sink_7", mono_snapshot, "no stream called", TRUE },
  { NULL, mono_snapshot, "no stream called", TRUE },
};

GST_START_TEST (test_import_state_refused)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GBytes *bytes
      = refused_cases[__i__].make != NULL ? refused_cases[__i__].make () : NULL;
  gfloat *x = make_signal (HOP, 1, 13);
  GBytes *before, *after;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;

  gst_element_set_bus (h->element, bus);
  push_signal (h, x, HOP, 1, HOP, 0);
  before = export_state (h->element, "sink_0");
  fail_if (import_state (h->element, refused_cases[__i__].pad, bytes));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &error, &debug);
  fail_unless (strstr (error->message, refused_cases[__i__].needle) != NULL,
      "\"%s\" does not name \"%s\"", error->message,
      refused_cases[__i__].needle);
  after = export_state (h->element, "sink_0");
  fail_unless (snapshot_content_equal (before, after));

  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  if (bytes != NULL)
    g_bytes_unref (bytes);
  g_bytes_unref (before);
  g_bytes_unref (after);
  g_free (x);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A refused import-state before caps leaves the stream without a state: no
 * snapshot, no counters; an accepted one then still seeds the stream. */
GST_START_TEST (test_import_state_refused_before_caps)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GstPad *pad = gst_element_request_pad_simple (e, "sink_%u");
  GBytes *bytes
      = refused_cases[__i__].make != NULL ? refused_cases[__i__].make () : NULL;
  GBytes *good = mono_snapshot ();
  GstStructure *stats = NULL;

  /* Before caps the stream's channel count is not known yet. */
  if (refused_cases[__i__].before_caps)
    fail_if (import_state (e, refused_cases[__i__].pad, bytes));
  fail_unless (export_state (e, "sink_0") == NULL);
  g_object_get (pad, "state-stats", &stats, NULL);
  fail_unless (stats == NULL, "a refused import made a state");
  fail_unless (import_state (e, "sink_0", good));
  g_object_get (pad, "state-stats", &stats, NULL);
  fail_unless (stats != NULL);
  gst_structure_free (stats);

  if (bytes != NULL)
    g_bytes_unref (bytes);
  g_bytes_unref (good);
  gst_element_release_request_pad (e, pad);
  gst_object_unref (pad);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_export_state_before_caps_and_unknown)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GstPad *pad = gst_element_request_pad_simple (e, "sink_%u");

  fail_unless (export_state (e, "sink_0") == NULL);
  fail_unless (export_state (e, "sink_9") == NULL);
  fail_unless (export_state (e, NULL) == NULL);
  gst_element_release_request_pad (e, pad);
  /* A released pad is unknown. */
  fail_unless (export_state (e, "sink_0") == NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * Model file, caps
 * --------------------------------------------------------------------- */

GST_START_TEST (test_bad_model_fails_state_change)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("rnndenoise-bad-XXXXXX.rnnm", &path, NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;

  fail_unless (fd >= 0);
  fail_unless (g_file_set_contents (path, "RNDM garbage", -1, NULL));
  g_close (fd, NULL);
  gst_element_set_bus (e, bus);
  g_object_set (e, "model", path, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ));
  g_clear_error (&error);
  gst_message_unref (msg);

  g_object_set (e, "model", "/nonexistent/model.rnnm", NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND));
  g_clear_error (&error);
  gst_message_unref (msg);

  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

static const gchar *const unsupported_caps[] = {
  "audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=0",
  "audio/x-raw,format=F32LE,layout=interleaved,rate=44100,channels=1",
  "audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=9",
  "audio/x-raw,format=F32LE,layout=non-interleaved,rate=48000,channels=2",
  "audio/x-raw,format=S32LE,layout=interleaved,rate=48000,channels=1",
};

GST_START_TEST (test_unsupported_caps)
{
  GstHarness *h
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;
  GstCaps *caps;

  gst_element_set_bus (h->element, bus);
  /* Refused by the accept-caps check, with a warning that says why. */
  caps = gst_caps_from_string (unsupported_caps[__i__]);
  gst_pad_push_event (h->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &error, &debug);
  fail_unless (strstr (error->message, "audioresample") != NULL);
  fail_unless (strstr (error->message, "48000") != NULL);
  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * Properties
 * --------------------------------------------------------------------- */

GST_START_TEST (test_child_proxy_pad_property)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GstPad *pad = gst_element_request_pad_simple (e, "sink_%u");
  gdouble v = 0.0;

  gst_child_proxy_set (GST_CHILD_PROXY (e), "sink_0::vad-threshold", 0.6, NULL);
  g_object_get (pad, "vad-threshold", &v, NULL);
  fail_unless (fabs (v - 0.6) < 1e-9);
  fail_unless_equals_int (gst_child_proxy_get_children_count (
                              GST_CHILD_PROXY (e)),
      1);
  gst_element_release_request_pad (e, pad);
  gst_object_unref (pad);
  gst_object_unref (e);
}

GST_END_TEST;

/* A gate no frame passes silences the output completely. */
GST_START_TEST (test_vad_gate_property)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (10 * HOP, 1, 14), *y;
  guint got, i;

  g_object_set (h->element, "vad-threshold", 1.0, "vad-hold", (guint64) 0,
      NULL);
  push_signal (h, x, 10 * HOP, 1, HOP, 0);
  got = pull_all (h, 1, &y, 0);
  fail_unless_equals_int (got, 8 * HOP);
  for (i = 0; i < got; i++)
    fail_unless_equals_float (y[i], 0.0f);
  g_free (x);
  g_free (y);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Time-valued properties are in nanoseconds; the gain settings can be
 * automated, and a controlled value reaches the stream at each buffer. */
GST_START_TEST (test_controlled_properties)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GObjectClass *klass = G_OBJECT_GET_CLASS (h->element);
  gfloat *x = make_signal (10 * HOP, 1, 14), *y;
  GstControlSource *cs;
  GParamSpec *pspec;
  guint64 hold = 0;
  guint got, i;

  pspec = g_object_class_find_property (klass, "vad-hold");
  fail_unless (G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_UINT64);
  g_object_get (h->element, "vad-hold", &hold, NULL);
  fail_unless_equals_uint64 (hold, 200 * GST_MSECOND);
  pspec = g_object_class_find_property (klass, "message-interval");
  fail_unless (G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_UINT64);
  fail_unless (g_object_class_find_property (klass, "attenuation-limit")->flags
      & GST_PARAM_CONTROLLABLE);
  fail_unless (g_object_class_find_property (klass, "vad-threshold")->flags
      & GST_PARAM_CONTROLLABLE);

  /* vad-threshold held at 1 by a control source (the property itself stays
   * 0): no frame passes the gate. */
  g_object_set (h->element, "vad-hold", (guint64) 0, NULL);
  cs = gst_interpolation_control_source_new ();
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs), 0,
      1.0);
  gst_object_add_control_binding (GST_OBJECT (h->element),
      gst_direct_control_binding_new (GST_OBJECT (h->element), "vad-threshold",
          cs));
  push_signal (h, x, 10 * HOP, 1, HOP, 0);
  got = pull_all (h, 1, &y, 0);
  fail_unless_equals_int (got, 8 * HOP);
  for (i = 0; i < got; i++)
    fail_unless_equals_float (y[i], 0.0f);
  gst_object_unref (cs);
  g_free (x);
  g_free (y);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_messages)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (RATE / 2, 1, 15);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  guint count = 0;
  gdouble vad;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "post-messages", TRUE, NULL);
  push_signal (h, x, RATE / 2, 1, HOP, 0);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)) != NULL) {
    const GstStructure *s = gst_message_get_structure (msg);

    if (gst_structure_has_name (s, "rnndenoise")) {
      fail_unless_equals_string (gst_structure_get_string (s, "pad"), "sink_0");
      fail_unless (gst_structure_get_double (s, "vad", &vad));
      fail_unless (vad >= 0.0 && vad <= 1.0);
      count++;
    }
    gst_message_unref (msg);
  }
  /* 0.5 s of input, 20 ms held back, one message per 100 ms. */
  fail_unless_equals_int (count, 4);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  g_free (x);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * Concurrency: pads in threads, application threads, release
 * --------------------------------------------------------------------- */

typedef struct
{
  GstHarness *h;
  const gfloat *x;
  guint n;
  guint chunk;
  guint channels;
} Feeder;

static gpointer
feed (gpointer data)
{
  Feeder *f = data;

  push_signal (f->h, f->x, f->n, f->channels, f->chunk, 0);
  return NULL;
}

/* Two pads of one element fed from two threads give exactly what each
 * stream gives alone; releasing one mid-stream does not disturb the
 * other. */
GST_START_TEST (test_two_pads_isolated)
{
  guint n = RATE, got0, got1, ref0_n, ref1_n;
  gfloat *x0 = make_signal (n, 1, 20), *x1 = make_signal (n, 2, 21);
  gfloat *y0, *y1, *ref0, *ref1;
  GstHarness *h0
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  GstHarness *h1
      = gst_harness_new_with_element (h0->element, "sink_1", "src_1");
  Feeder f0 = { h0, x0, n, 333, 1 }, f1 = { h1, x1, n, 1024, 2 };
  GBytes *state0, *state1, *ref_state0, *ref_state1;
  GThread *t0, *t1;

  gst_harness_set_src_caps_str (h0, F32_CAPS (1));
  gst_harness_set_src_caps_str (h1, F32_CAPS (2));
  t0 = g_thread_new ("feed0", feed, &f0);
  t1 = g_thread_new ("feed1", feed, &f1);
  g_thread_join (t0);
  g_thread_join (t1);
  gst_harness_push_event (h0, gst_event_new_eos ());
  gst_harness_push_event (h1, gst_event_new_eos ());
  got0 = pull_all (h0, 1, &y0, 0);
  got1 = pull_all (h1, 2, &y1, 0);
  ref0_n = reference_run (x0, n, 1, &ref0, &ref_state0);
  ref1_n = reference_run (x1, n, 2, &ref1, &ref_state1);
  fail_unless_equals_int (got0, ref0_n);
  fail_unless_equals_int (got1, ref1_n);
  assert_bits_equal (ref0, y0, (gsize) n);
  assert_bits_equal (ref1, y1, (gsize) n * 2);
  /* The whole stream state too: hidden state and DSP history. */
  state0 = export_state (h0->element, "sink_0");
  state1 = export_state (h0->element, "sink_1");
  fail_unless_equals_int (g_bytes_get_size (state0),
      g_bytes_get_size (ref_state0));
  fail_unless (snapshot_content_equal (state0, ref_state0));
  fail_unless (snapshot_content_equal (state1, ref_state1));
  g_bytes_unref (state0);
  g_bytes_unref (state1);
  g_bytes_unref (ref_state0);
  g_bytes_unref (ref_state1);

  g_free (x0);
  g_free (x1);
  g_free (y0);
  g_free (y1);
  g_free (ref0);
  g_free (ref1);
  gst_harness_teardown (h1);
  gst_harness_teardown (h0);
}

GST_END_TEST;

GST_START_TEST (test_release_one_pad_midstream)
{
  guint n = RATE / 2, got0, ref_n;
  gfloat *x0 = make_signal (n, 1, 22), *x1 = make_signal (n, 1, 23);
  gfloat *y0, *ref0;
  GstHarness *h0
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  GstHarness *h1
      = gst_harness_new_with_element (h0->element, "sink_1", "src_1");

  gst_harness_set_src_caps_str (h0, F32_CAPS (1));
  gst_harness_set_src_caps_str (h1, F32_CAPS (1));
  push_signal (h0, x0, n / 2, 1, 500, 0);
  push_signal (h1, x1, n / 2, 1, 500, 0);
  /* Tearing down h1 releases sink_1 and src_1 while sink_0 streams on. */
  gst_harness_teardown (h1);
  push_signal (h0, x0 + n / 2, n - n / 2, 1, 500, n / 2);
  gst_harness_push_event (h0, gst_event_new_eos ());
  got0 = pull_all (h0, 1, &y0, 0);
  ref_n = reference_output (x0, n, 1, &ref0);
  fail_unless_equals_int (got0, ref_n);
  assert_bits_equal (ref0, y0, n);
  g_free (x0);
  g_free (x1);
  g_free (y0);
  g_free (ref0);
  gst_harness_teardown (h0);
}

GST_END_TEST;

/* Application threads hammer export-state while audio flows (run by meson a
 * second time with RNNDENOISE_FAULTS=writeback-delay-us=2000): every
 * snapshot is the state after some completed buffer, never a torn mix,
 * and the audio is bit-identical to the processor's. */
typedef struct
{
  GstElement *element;
  gint stop;
  GMutex lock;
  GPtrArray *snapshots; /* lock */
} Hammer;

static guint
hammer_count (Hammer *hm)
{
  guint n;

  g_mutex_lock (&hm->lock);
  n = hm->snapshots->len;
  g_mutex_unlock (&hm->lock);
  return n;
}

static gpointer
hammer_get_state (gpointer data)
{
  Hammer *hm = data;

  while (!g_atomic_int_get (&hm->stop)) {
    GBytes *snap = export_state (hm->element, "sink_0");

    fail_unless (snap != NULL);
    g_mutex_lock (&hm->lock);
    g_ptr_array_add (hm->snapshots, snap);
    g_mutex_unlock (&hm->lock);
    g_usleep (100);
  }
  return NULL;
}

GST_START_TEST (test_export_state_under_load)
{
  guint n = 40 * HOP, k, got, ref_n, matched = 0;
  gfloat *x = make_signal (n, 1, 30), *y, *ref;
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  /* The whole state (hidden and history) after each buffer, and before
   * the first: the completed states a snapshot may show. */
  GHashTable *completed = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
      (GDestroyNotify) g_bytes_unref, NULL);
  Hammer hm = { h->element, 0, { 0 }, NULL };
  GThread *threads[2];
  GstBuffer *sbuf;

  gst_harness_set_sink_caps_str (hs, "application/x-rnn-state,format=F32LE");
  g_hash_table_add (completed, snapshot_content (h->element));
  g_mutex_init (&hm.lock);
  hm.snapshots
      = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  threads[0] = g_thread_new ("hammer0", hammer_get_state, &hm);
  threads[1] = g_thread_new ("hammer1", hammer_get_state, &hm);
  while (hammer_count (&hm) == 0)
    g_usleep (100);
  for (k = 0; k < n / HOP; k++) {
    push_signal (h, x + k * HOP, HOP, 1, HOP, (guint64) k * HOP);
    /* The state pad is linked, so the writeback has a side output too. */
    sbuf = gst_harness_pull (hs);
    gst_buffer_unref (sbuf);
    g_hash_table_add (completed, snapshot_content (h->element));
  }
  /* Let the hammers see the last state too. */
  k = hammer_count (&hm);
  while (hammer_count (&hm) < k + 2)
    g_usleep (100);
  g_atomic_int_set (&hm.stop, 1);
  g_thread_join (threads[0]);
  g_thread_join (threads[1]);

  for (k = 0; k < hm.snapshots->len; k++) {
    GBytes *content = content_of (g_ptr_array_index (hm.snapshots, k));

    fail_unless (g_hash_table_contains (completed, content),
        "snapshot %u is not the whole state after any buffer", k);
    g_bytes_unref (content);
    matched++;
  }
  fail_unless (matched > 0);

  gst_harness_push_event (h, gst_event_new_eos ());
  got = pull_all (h, 1, &y, 0);
  ref_n = reference_output (x, n, 1, &ref);
  fail_unless_equals_int (got, ref_n);
  assert_bits_equal (ref, y, n);

  GST_INFO ("%u snapshots checked", matched);
  g_ptr_array_unref (hm.snapshots);
  g_mutex_clear (&hm.lock);
  g_hash_table_unref (completed);
  g_free (x);
  g_free (y);
  g_free (ref);
  gst_harness_teardown (hs);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_request_release_1000_pads)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  guint k;

  for (k = 0; k < 1000; k++) {
    GstPad *sink = gst_element_request_pad_simple (e, "sink_%u");
    GstPad *state = gst_element_request_pad_simple (e, "state_%u");

    fail_unless (sink != NULL && state != NULL);
    fail_unless_equals_int (GST_ELEMENT (e)->numpads, 3);
    if (k % 2 == 0) {
      gst_element_release_request_pad (e, state);
      gst_element_release_request_pad (e, sink);
    } else {
      gst_element_release_request_pad (e, sink);
      gst_element_release_request_pad (e, state);
    }
    gst_object_unref (sink);
    gst_object_unref (state);
  }
  fail_unless_equals_int (GST_ELEMENT (e)->numpads, 0);
  gst_object_unref (e);
}

GST_END_TEST;

/* The default launch line links without pad names. */
GST_START_TEST (test_launch_without_pad_names)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("audiotestsrc num-buffers=20 ! "
                                           "audio/x-raw,rate=48000 ! "
                                           "rnndenoise name=d ! fakesink "
                                           "d.state_0 ! queue ! fakesink",
      &error);
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * The contract seen from outside: counts, flags, flows, events
 * --------------------------------------------------------------------- */

/* Pushes @n samples in buffers of @chunk and calls @action once, at the
 * first buffer boundary at or after sample @at (never before the first
 * buffer: this is mid-stream). */
typedef enum
{
  MID_IMPORT_MATURE, /* a state whose 20 ms of output are all due */
  MID_IMPORT_FRESH,  /* a state that has its whole pre-roll ahead */
  MID_RESET,
  MID_IMPORT_THEN_RESET,
  MID_RESET_THEN_IMPORT,
  MID_LAST,
} MidAction;

static void
mid_action (GstElement *element, MidAction action, GBytes *mature,
    GBytes *fresh)
{
  gboolean ok;

  switch (action) {
    case MID_IMPORT_MATURE:
      fail_unless (import_state (element, "sink_0", mature));
      break;
    case MID_IMPORT_FRESH:
      fail_unless (import_state (element, "sink_0", fresh));
      break;
    case MID_RESET:
      g_signal_emit_by_name (element, "reset", "sink_0", &ok);
      break;
    case MID_IMPORT_THEN_RESET:
      fail_unless (import_state (element, "sink_0", mature));
      g_signal_emit_by_name (element, "reset", "sink_0", &ok);
      break;
    case MID_RESET_THEN_IMPORT:
      g_signal_emit_by_name (element, "reset", "sink_0", &ok);
      fail_unless (import_state (element, "sink_0", mature));
      break;
    default:
      g_assert_not_reached ();
  }
}

static const guint mid_chunks[] = { 1, 64, 160, 479, 480, 481, 1000 };
static const guint mid_points[] = { 1, 200, 700, 2000 };

/* One output sample per input sample for every buffer size and every
 * timing of an application's import-state or reset, with timestamps that
 * follow the samples (pull_all checks them). */
GST_START_TEST (test_midstream_state_change_exact_count)
{
  guint chunk = mid_chunks[__i__], n = 4800, p, got;
  gfloat *x = make_signal (n, 1, 40), *y;
  GBytes *mature, *fresh;
  MidAction action;

  {
    GstHarness *m = new_stream_harness (F32_CAPS (1));

    fresh = export_state (m->element, "sink_0");
    push_signal (m, x, 2 * LATENCY, 1, HOP, 0);
    mature = export_state (m->element, "sink_0");
    gst_harness_teardown (m);
  }
  for (action = 0; action < MID_LAST; action++) {
    for (p = 0; p < G_N_ELEMENTS (mid_points); p++) {
      GstHarness *h = new_stream_harness (F32_CAPS (1));
      guint done = 0;
      gboolean acted = FALSE;

      while (done < n) {
        guint m = MIN (chunk, n - done);

        if (!acted && done > 0 && done >= mid_points[p]) {
          mid_action (h->element, action, mature, fresh);
          acted = TRUE;
        }
        push_signal (h, x + done, m, 1, m, done);
        done += m;
      }
      gst_harness_push_event (h, gst_event_new_eos ());
      got = pull_all (h, 1, &y, 0);
      fail_unless_equals_int (got, n);
      g_free (y);
      gst_harness_teardown (h);
    }
  }
  g_bytes_unref (mature);
  g_bytes_unref (fresh);
  g_free (x);
}

GST_END_TEST;

/* The state pad is an observer: whatever its downstream returns
 * (flushing, not linked, EOS), the audio keeps flowing. */
typedef enum
{
  STATE_DOWN_FLUSHING,
  STATE_DOWN_UNLINKED,
  STATE_DOWN_EOS,
  STATE_DOWN_RELEASED,
} StateDownstream;

GST_START_TEST (test_state_downstream_never_stops_audio)
{
  StateDownstream what = (StateDownstream) __i__;
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  GstPad *statepad = gst_element_get_static_pad (h->element, "state_0");
  gfloat *x = make_signal (10 * HOP, 1, 41), *y;
  GstBuffer *sbuf;
  guint k;

  push_signal (h, x, 2 * HOP, 1, HOP, 0);
  sbuf = gst_harness_pull (hs);
  gst_buffer_unref (sbuf);
  switch (what) {
    case STATE_DOWN_FLUSHING: /* its sink was set to NULL */
      gst_pad_set_active (hs->sinkpad, FALSE);
      break;
    case STATE_DOWN_UNLINKED:
      gst_pad_unlink (statepad, hs->sinkpad);
      break;
    case STATE_DOWN_EOS: /* its sink took no more */
      fail_unless (gst_pad_send_event (hs->sinkpad, gst_event_new_eos ()));
      break;
    case STATE_DOWN_RELEASED:
      gst_element_release_request_pad (h->element, statepad);
      break;
  }
  for (k = 2; k < 10; k++)
    fail_unless_equals_int (gst_harness_push (h,
                                f32_buffer (x + k * HOP, HOP, 1,
                                    (guint64) k * HOP)),
        GST_FLOW_OK);
  gst_harness_push_event (h, gst_event_new_eos ());
  fail_unless_equals_int (pull_all (h, 1, &y, 0), 10 * HOP);
  g_free (y);
  g_free (x);
  gst_object_unref (statepad);
  gst_harness_teardown (hs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A GAP buffer's output carries the previous 20 ms of real audio: only
 * output that is silence may carry the GAP flag. */
GST_START_TEST (test_gap_flag_only_on_silence)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (6 * HOP, 1, 42), *silence = g_new0 (gfloat, HOP);
  GstBuffer *buf;
  guint k, gaps = 0, index = 0;

  push_signal (h, x, 6 * HOP, 1, HOP, 0);
  for (k = 6; k < 12; k++) {
    buf = f32_buffer (silence, HOP, 1, (guint64) k * HOP);
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  while ((buf = gst_harness_try_pull (h)) != NULL) {
    GstMapInfo map;
    gboolean silent;

    gst_buffer_map (buf, &map, GST_MAP_READ);
    silent = all_zero ((const gfloat *) map.data, map.size / 4);
    gst_buffer_unmap (buf, &map);
    if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)) {
      fail_unless (silent, "output buffer %u is flagged GAP but not silent",
          index);
      gaps++;
    }
    /* Buffers 4 and 5 (the first two of GAP input) carry speech. */
    if (index == 4 || index == 5)
      fail_if (silent);
    gst_buffer_unref (buf);
    index++;
  }
  fail_unless_equals_int (index, 10);
  /* The silent output of GAP input keeps the flag. */
  fail_unless (gaps > 0);
  g_free (silence);
  g_free (x);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* EOS before the first buffer reaches a linked state pad, with caps and
 * without. */
GST_START_TEST (test_eos_before_data_reaches_state_pad)
{
  gboolean with_caps = __i__ == 0;
  GstHarness *h
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  GstEvent *event;
  gboolean eos = FALSE, stream_start = FALSE;

  if (with_caps) {
    gst_harness_set_src_caps_str (h, F32_CAPS (1));
  } else {
    GstSegment segment;

    gst_segment_init (&segment, GST_FORMAT_TIME);
    gst_harness_push_event (h, gst_event_new_stream_start ("nothing"));
    gst_harness_push_event (h, gst_event_new_segment (&segment));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((event = gst_harness_try_pull_event (hs)) != NULL) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START)
      stream_start = TRUE;
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      eos = TRUE;
    gst_event_unref (event);
  }
  fail_unless (stream_start);
  fail_unless (eos);
  gst_harness_teardown (hs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Counts the upstream events and queries that reach a harness's source. */
typedef struct
{
  gint events;
  gint queries;
} UpstreamCount;

static GstPadProbeReturn
count_upstream (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  UpstreamCount *count = data;

  (void) pad;
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) {
    if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info))
        == GST_EVENT_CUSTOM_UPSTREAM)
      g_atomic_int_inc (&count->events);
  } else if (GST_QUERY_TYPE (GST_PAD_PROBE_INFO_QUERY (info))
      == GST_QUERY_CUSTOM) {
    g_atomic_int_inc (&count->queries);
  }
  return GST_PAD_PROBE_OK;
}

/* An upstream event or query on state_N goes to stream N's upstream only,
 * never to another stream's. */
GST_START_TEST (test_state_pad_upstream_isolated)
{
  GstHarness *h0
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  GstHarness *h1
      = gst_harness_new_with_element (h0->element, "sink_1", "src_1");
  GstHarness *hs1 = gst_harness_new_with_element (h0->element, NULL, "state_1");
  UpstreamCount c0 = { 0, 0 }, c1 = { 0, 0 };
  GstQuery *query;

  gst_harness_set_src_caps_str (h0, F32_CAPS (1));
  gst_harness_set_src_caps_str (h1, F32_CAPS (1));
  gst_pad_add_probe (h0->srcpad,
      GST_PAD_PROBE_TYPE_EVENT_UPSTREAM | GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
      count_upstream, &c0, NULL);
  gst_pad_add_probe (h1->srcpad,
      GST_PAD_PROBE_TYPE_EVENT_UPSTREAM | GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
      count_upstream, &c1, NULL);

  gst_harness_push_upstream_event (hs1,
      gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
          gst_structure_new_empty ("from-state-1")));
  query = gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new_empty ("from-state-1"));
  gst_pad_peer_query (hs1->sinkpad, query);
  gst_query_unref (query);

  fail_unless_equals_int (g_atomic_int_get (&c1.events), 1);
  fail_unless_equals_int (g_atomic_int_get (&c0.events), 0);
  fail_unless_equals_int (g_atomic_int_get (&c1.queries), 1);
  fail_unless_equals_int (g_atomic_int_get (&c0.queries), 0);
  gst_harness_teardown (hs1);
  gst_harness_teardown (h1);
  gst_harness_teardown (h0);
}

GST_END_TEST;

/* An empty buffer is dropped and changes nothing, whatever its flags; a
 * DISCONT it carries applies to the next buffer that holds samples. */
GST_START_TEST (test_empty_discont_buffer)
{
  gboolean reset_on_discont = __i__ == 0;
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstHarness *fresh = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (5 * HOP, 1, 43), *y;
  GBytes *before, *after, *expected;
  GstBuffer *buf;

  g_object_set (h->element, "reset-on-discont", reset_on_discont, NULL);
  push_signal (h, x, 3 * HOP, 1, HOP, 0);
  fail_unless_equals_int (pull_all (h, 1, &y, 0), HOP);
  g_free (y);
  before = export_state (h->element, "sink_0");
  buf = gst_buffer_new ();
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (3 * HOP, GST_SECOND, RATE);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  /* Nothing drained, nothing reset. */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  after = export_state (h->element, "sink_0");
  fail_unless (snapshot_content_equal (before, after));
  g_bytes_unref (after);

  /* The next buffer with samples is the discontinuity. */
  push_signal (h, x + 3 * HOP, HOP, 1, HOP, 3 * HOP);
  push_signal (fresh, x + 3 * HOP, HOP, 1, HOP, 3 * HOP);
  after = export_state (h->element, "sink_0");
  expected = export_state (fresh->element, "sink_0");
  fail_unless_equals_int (snapshot_content_equal (after, expected),
      reset_on_discont);
  g_bytes_unref (after);
  g_bytes_unref (expected);
  g_bytes_unref (before);
  g_free (x);
  gst_harness_teardown (fresh);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * Rules of the contract, each with the mutation it catches in mind
 * --------------------------------------------------------------------- */

static void
push_time_segment (GstHarness *h)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
}

static guint64
stat_of (GstElement *element, const gchar *field)
{
  GstPad *pad = gst_element_get_static_pad (element, "sink_0");
  GstStructure *stats = NULL;
  guint64 v = 0;

  g_object_get (pad, "state-stats", &stats, NULL);
  fail_unless (stats != NULL, "no state-stats");
  fail_unless (gst_structure_get_uint64 (stats, field, &v));
  gst_structure_free (stats);
  gst_object_unref (pad);
  return v;
}

/* A stream's output after a mono snapshot taken at @split continues the
 * uninterrupted run bit-exactly, and has its length. */
static void
assert_continues (GstHarness *h, const gfloat *x, guint n, guint split,
    const gfloat *whole, guint n_first)
{
  gfloat *part2;
  guint n_second;

  push_signal (h, x + split, n - split, 1, 1000, split);
  gst_harness_push_event (h, gst_event_new_eos ());
  n_second = pull_all (h, 1, &part2, n_first);
  fail_unless_equals_int (n_first + n_second, n);
  assert_bits_equal (whole + n_first, part2, n_second);
  g_free (part2);
}

typedef enum
{
  SURVIVE_FLUSH,
  SURVIVE_READY_TO_PAUSED,
  SURVIVE_STREAM_START,
} SurviveCase;

/* A state set before the stream starts survives the stream-event resets
 * (FLUSH_STOP, READY->PAUSED, STREAM_START) and seeds the first buffer. */
GST_START_TEST (test_import_survives_stream_resets)
{
  SurviveCase what = (SurviveCase) __i__;
  guint n = 12000, split = 4800, n_first;
  gfloat *x = make_signal (n, 1, 44), *whole, *part1;
  GstHarness *ref = new_stream_harness (F32_CAPS (1));
  GstHarness *h1 = new_stream_harness (F32_CAPS (1));
  GstHarness *h2
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  GBytes *snap;
  guint64 resets;

  push_signal (ref, x, n, 1, 1000, 0);
  gst_harness_push_event (ref, gst_event_new_eos ());
  fail_unless_equals_int (pull_all (ref, 1, &whole, 0), n);
  push_signal (h1, x, split, 1, 1000, 0);
  n_first = pull_all (h1, 1, &part1, 0);
  snap = export_state (h1->element, "sink_0");

  if (what == SURVIVE_READY_TO_PAUSED) {
    fail_unless_equals_int (gst_element_set_state (h2->element,
                                GST_STATE_READY),
        GST_STATE_CHANGE_SUCCESS);
    fail_unless (import_state (h2->element, "sink_0", snap));
    resets = stat_of (h2->element, "resets");
    fail_unless_equals_int (gst_element_set_state (h2->element,
                                GST_STATE_PLAYING),
        GST_STATE_CHANGE_SUCCESS);
    /* READY->PAUSED reset the stream, and kept the import. */
    fail_unless_equals_uint64 (stat_of (h2->element, "resets"), resets + 1);
    gst_harness_set_src_caps_str (h2, F32_CAPS (1));
  } else {
    fail_unless (import_state (h2->element, "sink_0", snap));
    gst_harness_set_src_caps_str (h2, F32_CAPS (1));
    if (what == SURVIVE_FLUSH) {
      gst_harness_push_event (h2, gst_event_new_flush_start ());
      gst_harness_push_event (h2, gst_event_new_flush_stop (TRUE));
      push_time_segment (h2);
    } else {
      gst_harness_push_event (h2, gst_event_new_stream_start ("next"));
    }
  }
  assert_continues (h2, x, n, split, whole, n_first);

  g_bytes_unref (snap);
  g_free (x);
  g_free (whole);
  g_free (part1);
  gst_harness_teardown (ref);
  gst_harness_teardown (h1);
  gst_harness_teardown (h2);
}

GST_END_TEST;

/* The application's reset forgets a state set and not used yet, before
 * the stream starts (row 0) and mid-stream (row 1): the next buffer starts
 * from the initial state, as in a fresh stream. */
GST_START_TEST (test_reset_drops_pending_import)
{
  gboolean midstream = __i__ == 1;
  GstHarness *h
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  GstHarness *fresh = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (4 * HOP, 1, 45);
  GBytes *snap = mono_snapshot (), *got, *expected;
  gboolean ok;

  if (midstream) {
    gst_harness_set_src_caps_str (h, F32_CAPS (1));
    push_signal (h, x, 2 * HOP, 1, HOP, 0);
  }
  fail_unless (import_state (h->element, "sink_0", snap));
  g_signal_emit_by_name (h->element, "reset", "sink_0", &ok);
  fail_unless (ok);
  if (!midstream)
    gst_harness_set_src_caps_str (h, F32_CAPS (1));
  push_signal (h, x + 2 * HOP, HOP, 1, HOP, 2 * HOP);
  push_signal (fresh, x + 2 * HOP, HOP, 1, HOP, 2 * HOP);
  got = export_state (h->element, "sink_0");
  expected = export_state (fresh->element, "sink_0");
  fail_unless (snapshot_content_equal (got, expected));
  fail_unless_equals_uint64 (stat_of (h->element, "imports"), 0);

  g_bytes_unref (got);
  g_bytes_unref (expected);
  g_bytes_unref (snap);
  g_free (x);
  gst_harness_teardown (fresh);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* PAUSED->READY forgets the stream (no state, no counters, a pending import
 * gone); READY->PAUSED starts every stream from the initial state. */
GST_START_TEST (test_state_change_forgets_stream)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GstPad *pad = gst_element_get_static_pad (h->element, "sink_0");
  gfloat *x = make_signal (6 * HOP, 1, 46), *y, *ref;
  GstStructure *stats = NULL;
  GBytes *snap = mono_snapshot ();
  GstCaps *caps;
  guint got;

  push_signal (h, x, 3 * HOP, 1, HOP, 0);
  fail_unless (import_state (h->element, "sink_0", snap));
  gst_buffer_unref (gst_harness_pull (h)); /* the one output so far */
  fail_unless_equals_int (gst_element_set_state (h->element, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (export_state (h->element, "sink_0") == NULL);
  g_object_get (pad, "state-stats", &stats, NULL);
  fail_unless (stats == NULL, "the stream was not forgotten");

  /* Played again from the start: exactly a fresh stream, no import. */
  fail_unless_equals_int (gst_element_set_state (h->element, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  caps = gst_caps_from_string (F32_CAPS (1));
  fail_unless (
      gst_pad_push_event (h->srcpad, gst_event_new_stream_start ("again")));
  fail_unless (gst_pad_push_event (h->srcpad, gst_event_new_caps (caps)));
  gst_caps_unref (caps);
  push_signal (h, x, 6 * HOP, 1, HOP, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  got = pull_all (h, 1, &y, 0);
  fail_unless_equals_int (got, 6 * HOP);
  fail_unless_equals_int (reference_output (x, 6 * HOP, 1, &ref), 6 * HOP);
  assert_bits_equal (ref, y, 6 * HOP);
  fail_unless_equals_uint64 (stat_of (h->element, "imports"), 0);

  g_bytes_unref (snap);
  g_free (x);
  g_free (y);
  g_free (ref);
  gst_object_unref (pad);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* An import that reached the stream is not applied again when the caps
 * change later: the new format starts from the initial state. */
GST_START_TEST (test_applied_import_not_reapplied)
{
  GstHarness *h
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  GstHarness *fresh = new_stream_harness (S16_CAPS (1));
  gfloat *x = make_signal (4 * HOP, 1, 47);
  GBytes *snap = mono_snapshot (), *got, *expected;

  fail_unless (import_state (h->element, "sink_0", snap));
  gst_harness_set_src_caps_str (h, F32_CAPS (1));
  push_signal (h, x, 2 * HOP, 1, HOP, 0);
  fail_unless_equals_uint64 (stat_of (h->element, "imports"), 1);
  /* Same channel count, so the import would still fit. */
  gst_harness_set_src_caps_str (h, S16_CAPS (1));
  push_signal (h, x + 2 * HOP, HOP, 1, HOP, 2 * HOP);
  push_signal (fresh, x + 2 * HOP, HOP, 1, HOP, 2 * HOP);
  got = export_state (h->element, "sink_0");
  expected = export_state (fresh->element, "sink_0");
  fail_unless (snapshot_content_equal (got, expected),
      "the import was applied again after the caps change");
  fail_unless_equals_uint64 (stat_of (h->element, "imports"), 0);

  g_bytes_unref (got);
  g_bytes_unref (expected);
  g_bytes_unref (snap);
  g_free (x);
  gst_harness_teardown (fresh);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* FLUSH on one stream resets that stream only: the other's audio and whole
 * state are bit-identical to its run alone. */
GST_START_TEST (test_flush_one_stream_only)
{
  guint n = 12 * HOP, got1;
  gfloat *x0 = make_signal (n, 1, 48), *x1 = make_signal (n, 1, 49);
  gfloat *y1, *ref1;
  GstBuffer *out;
  GstHarness *h0
      = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  GstHarness *h1
      = gst_harness_new_with_element (h0->element, "sink_1", "src_1");
  GBytes *state1, *ref_state1;

  gst_harness_set_src_caps_str (h0, F32_CAPS (1));
  gst_harness_set_src_caps_str (h1, F32_CAPS (1));
  push_signal (h0, x0, n / 2, 1, HOP, 0);
  push_signal (h1, x1, n / 2, 1, HOP, 0);
  gst_harness_push_event (h0, gst_event_new_flush_start ());
  gst_harness_push_event (h0, gst_event_new_flush_stop (TRUE));
  push_time_segment (h0);
  push_signal (h0, x0 + n / 2, n / 2, 1, HOP, 0);
  push_signal (h1, x1 + n / 2, n / 2, 1, HOP, n / 2);
  state1 = export_state (h0->element, "sink_1");
  gst_harness_push_event (h1, gst_event_new_eos ());
  got1 = pull_all (h1, 1, &y1, 0);
  fail_unless_equals_int (reference_run (x1, n, 1, &ref1, &ref_state1), n);
  fail_unless_equals_int (got1, n);
  assert_bits_equal (ref1, y1, n);
  fail_unless (snapshot_content_equal (state1, ref_state1));
  while ((out = gst_harness_try_pull (h0)) != NULL)
    gst_buffer_unref (out);

  g_bytes_unref (state1);
  g_bytes_unref (ref_state1);
  g_free (x0);
  g_free (x1);
  g_free (y1);
  g_free (ref1);
  gst_harness_teardown (h1);
  gst_harness_teardown (h0);
}

GST_END_TEST;

/* Two pads never share scratch memory: two streams of the same format,
 * pushed in lock-step from two threads so that their frames run at the
 * same time, each give exactly what they give alone. */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint waiting; /* lock */
  guint round;   /* lock */
} Barrier;

static void
barrier_wait (Barrier *b, guint parties)
{
  guint round;

  g_mutex_lock (&b->lock);
  round = b->round;
  if (++b->waiting == parties) {
    b->waiting = 0;
    b->round++;
    g_cond_broadcast (&b->cond);
  } else {
    while (b->round == round)
      g_cond_wait (&b->cond, &b->lock);
  }
  g_mutex_unlock (&b->lock);
}

typedef struct
{
  GstHarness *h;
  const gfloat *x;
  guint n;
  Barrier *barrier;
} LockStep;

/* One frame per round: both threads reach the network together. */
#define LOCK_STEP_CHUNK HOP

static gpointer
feed_lock_step (gpointer data)
{
  LockStep *f = data;
  guint done;

  for (done = 0; done < f->n; done += LOCK_STEP_CHUNK) {
    barrier_wait (f->barrier, 2);
    push_signal (f->h, f->x + done, LOCK_STEP_CHUNK, 1, LOCK_STEP_CHUNK, done);
  }
  return NULL;
}

GST_START_TEST (test_pads_share_no_scratch)
{
  guint n = 3000 * LOCK_STEP_CHUNK, i;
  gfloat *x[2], *y[2], *ref[2];
  GstHarness *h[2];
  LockStep f[2];
  Barrier barrier;
  GThread *t[2];
  GBytes *state, *ref_state;

  g_mutex_init (&barrier.lock);
  g_cond_init (&barrier.cond);
  barrier.waiting = 0;
  barrier.round = 0;
  h[0] = gst_harness_new_with_padnames ("rnndenoise", "sink_0", "src_0");
  h[1] = gst_harness_new_with_element (h[0]->element, "sink_1", "src_1");
  for (i = 0; i < 2; i++) {
    x[i] = make_signal (n, 1, 50 + i);
    gst_harness_set_src_caps_str (h[i], F32_CAPS (1));
    f[i] = (LockStep){ h[i], x[i], n, &barrier };
  }
  for (i = 0; i < 2; i++)
    t[i] = g_thread_new ("lock-step", feed_lock_step, &f[i]);
  for (i = 0; i < 2; i++)
    g_thread_join (t[i]);
  for (i = 0; i < 2; i++) {
    gchar *name = g_strdup_printf ("sink_%u", i);

    state = export_state (h[0]->element, name);
    g_free (name);
    gst_harness_push_event (h[i], gst_event_new_eos ());
    fail_unless_equals_int (pull_all (h[i], 1, &y[i], 0), n);
    fail_unless_equals_int (reference_run (x[i], n, 1, &ref[i], &ref_state), n);
    assert_bits_equal (ref[i], y[i], n);
    fail_unless (snapshot_content_equal (state, ref_state));
    g_bytes_unref (state);
    g_bytes_unref (ref_state);
  }
  for (i = 0; i < 2; i++) {
    g_free (x[i]);
    g_free (y[i]);
    g_free (ref[i]);
  }
  gst_harness_teardown (h[1]);
  gst_harness_teardown (h[0]);
  g_cond_clear (&barrier.cond);
  g_mutex_clear (&barrier.lock);
}

GST_END_TEST;

static Suite *
rnndenoise_suite (void)
{
  Suite *s = suite_create ("rnndenoise");
  TCase *tc;

  tc = tcase_create ("stream");
  tcase_add_test (tc, test_output_matches_processor);
  tcase_add_loop_test (tc, test_eos_exact_sample_count, 0,
      G_N_ELEMENTS (eos_buffer_sizes));
  tcase_add_test (tc, test_s16_round_trip_count);
  tcase_add_test (tc, test_latency_query);
  tcase_add_test (tc, test_empty_and_odd_buffers);
  tcase_add_test (tc, test_nonfinite_input_warns_and_recovers);
  tcase_add_test (tc, test_gap_passes_through);
  tcase_add_test (tc, test_time_jump_and_discont_flags);
  tcase_add_loop_test (tc, test_odd_streams, 0, ODD_DC + 1);
  tcase_add_test (tc, test_launch_without_pad_names);
  suite_add_tcase (s, tc);

  tc = tcase_create ("state");
  tcase_add_test (tc, test_persistence_and_reset);
  tcase_add_test (tc, test_state_pad_matches_export_state);
  tcase_add_test (tc, test_state_only_after_frames);
  tcase_add_loop_test (tc, test_state_immutable_and_formats, 0,
      G_N_ELEMENTS (state_formats));
  tcase_add_test (tc, test_unlinked_state_pad_keeps_audio);
  tcase_add_test (tc, test_state_buffers_recycled);
  tcase_add_test (tc, test_state_stats);
  tcase_add_loop_test (tc, test_reset_events, 0, G_N_ELEMENTS (reset_cases));
  tcase_add_loop_test (tc, test_discont, 0, 2);
  tcase_add_test (tc, test_midstream_reset_keeps_count);
  tcase_add_loop_test (tc, test_migration_bit_exact, 0,
      G_N_ELEMENTS (split_points));
  suite_add_tcase (s, tc);

  tc = tcase_create ("errors");
  tcase_add_loop_test (tc, test_import_state_refused, 0,
      G_N_ELEMENTS (refused_cases));
  tcase_add_loop_test (tc, test_import_state_refused_before_caps, 0,
      G_N_ELEMENTS (refused_cases));
  tcase_add_test (tc, test_export_state_before_caps_and_unknown);
  tcase_add_test (tc, test_bad_model_fails_state_change);
  tcase_add_loop_test (tc, test_unsupported_caps, 0,
      G_N_ELEMENTS (unsupported_caps));
  suite_add_tcase (s, tc);

  tc = tcase_create ("properties");
  tcase_add_test (tc, test_child_proxy_pad_property);
  tcase_add_test (tc, test_vad_gate_property);
  tcase_add_test (tc, test_controlled_properties);
  tcase_add_test (tc, test_messages);
  suite_add_tcase (s, tc);

  tc = tcase_create ("contract");
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, test_midstream_state_change_exact_count, 0,
      G_N_ELEMENTS (mid_chunks));
  tcase_add_loop_test (tc, test_state_downstream_never_stops_audio, 0,
      STATE_DOWN_RELEASED + 1);
  tcase_add_test (tc, test_gap_flag_only_on_silence);
  tcase_add_loop_test (tc, test_eos_before_data_reaches_state_pad, 0, 2);
  tcase_add_test (tc, test_state_pad_upstream_isolated);
  tcase_add_loop_test (tc, test_empty_discont_buffer, 0, 2);
  tcase_add_loop_test (tc, test_import_survives_stream_resets, 0,
      SURVIVE_STREAM_START + 1);
  tcase_add_loop_test (tc, test_reset_drops_pending_import, 0, 2);
  tcase_add_test (tc, test_state_change_forgets_stream);
  tcase_add_test (tc, test_applied_import_not_reapplied);
  tcase_add_test (tc, test_flush_one_stream_only);
  suite_add_tcase (s, tc);

  tc = tcase_create ("concurrency");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_two_pads_isolated);
  tcase_add_test (tc, test_release_one_pad_midstream);
  tcase_add_test (tc, test_export_state_under_load);
  tcase_add_test (tc, test_pads_share_no_scratch);
  tcase_add_test (tc, test_request_release_1000_pads);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (rnndenoise);
