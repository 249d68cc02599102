/* rnndenoise — element tests: output, sample counts, timestamps, latency, odd input
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnndenoise-helpers.h"

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

  /* The harness's source answers 0: the rest is ours, exactly 30 ms. */
  fail_unless_equals_uint64 (latency, LATENCY_NS);
  fail_unless_equals_uint64 (latency, 30 * GST_MSECOND);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* low-latency: a harness whose element was made with the property set
 * (it only changes in NULL and READY). */
static GstHarness *
new_low_latency_harness (void)
{
  return new_harness_with (F32_CAPS (1), "low-latency", TRUE, NULL);
}

/* Input in whole 10 ms frames: 20 ms of latency reported and delivered
 * (the frame the model reads ahead and this one; each buffer gives as many
 * samples as it brings, one frame sooner than the default), the same
 * samples bit for bit, exact count after EOS. */
GST_START_TEST (test_low_latency_aligned)
{
  guint n = 48000, got, k;
  gfloat *x = make_signal (n, 1, 4), *y, *ref;
  GstHarness *h = new_low_latency_harness ();
  GstHarness *plain = new_stream_harness (F32_CAPS (1));
  GstBus *bus = gst_bus_new ();
  gboolean low_latency = FALSE;

  g_object_get (h->element, "low-latency", &low_latency, NULL);
  fail_unless (low_latency);
  gst_element_set_bus (h->element, bus);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      LATENCY_NS - 10 * GST_MSECOND);
  fail_unless_equals_uint64 (gst_harness_query_latency (plain), LATENCY_NS);
  for (k = 0; k < n / HOP; k++) {
    push_signal (h, x + k * HOP, HOP, 1, HOP, k * HOP);
    push_signal (plain, x + k * HOP, HOP, 1, HOP, k * HOP);
    /* After k + 1 frames in: k - FRAMES_AHEAD frames out, the default one
     * fewer. */
    fail_unless_equals_int (gst_harness_buffers_in_queue (h), k > FRAMES_AHEAD);
    fail_unless_equals_int (gst_harness_buffers_in_queue (plain),
        k > FRAMES_AHEAD + 1);
    if (k > FRAMES_AHEAD + 1)
      gst_buffer_unref (gst_harness_pull (plain));
    if (k > FRAMES_AHEAD) {
      GstBuffer *buf = gst_harness_pull (h);

      fail_unless_equals_int (gst_buffer_get_size (buf), HOP * 4);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (buf),
          gst_util_uint64_scale_int ((k - 1 - FRAMES_AHEAD) * HOP, GST_SECOND,
              RATE));
      gst_buffer_unref (buf);
    }
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gst_harness_teardown (plain);

  /* The whole stream again, pulled at the end: the default's samples. */
  h = new_low_latency_harness ();
  push_signal (h, x, n, 1, HOP, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  got = pull_all (h, 1, &y, 0);
  fail_unless_equals_int (got, n);
  fail_unless_equals_int (reference_output (x, n, 1, &ref), n);
  assert_bits_equal (ref, y, n);
  g_free (x);
  g_free (y);
  g_free (ref);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Input not in whole frames: whole frames come out, a warning naming
 * audiobuffersplit, a latency message, the default's 30 ms from then on,
 * and still the same samples and count. */
GST_START_TEST (test_low_latency_unaligned)
{
  guint n = 12345, got;
  gfloat *x = make_signal (n, 1, 5), *y, *ref;
  GstHarness *h = new_low_latency_harness ();
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;

  gst_element_set_bus (h->element, bus);
  push_signal (h, x, n, 1, 333, 0);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &error, &debug);
  fail_unless (strstr (error->message, "whole 10 ms frames") != NULL);
  fail_unless (strstr (debug, "audiobuffersplit") != NULL);
  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  /* Once: no second warning for the same stream. */
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  fail_unless_equals_uint64 (gst_harness_query_latency (h), LATENCY_NS);

  gst_harness_push_event (h, gst_event_new_eos ());
  got = pull_all (h, 1, &y, 0);
  fail_unless_equals_int (got, n);
  fail_unless_equals_int (reference_output (x, n, 1, &ref), n);
  assert_bits_equal (ref, y, n);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  g_free (x);
  g_free (y);
  g_free (ref);
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
  /* The first LATENCY / HOP buffers are pre-roll; two come out after. */
  const guint before_jump = LATENCY / HOP + 2;

  for (k = 0; k < before_jump; k++)
    push_signal (h, x + k * HOP, HOP, 1, HOP, (guint64) k * HOP);
  out = gst_harness_pull (h);
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 0);
  gst_buffer_unref (out);
  out = gst_harness_pull (h);
  fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
  gst_buffer_unref (out);

  push_signal (h, x + before_jump * HOP, HOP, 1, HOP, jump + before_jump * HOP);
  out = gst_harness_pull (h);
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
  /* The output lags the latency behind the input's new time. */
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out),
      gst_util_uint64_scale_int (jump + before_jump * HOP - LATENCY, GST_SECOND,
          RATE));
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

/* F32 input is processed in the input buffer when the element may write to
 * it; a buffer someone else still holds is left as it was, and both give
 * the processor's output. */
GST_START_TEST (test_in_place_only_when_writable)
{
  const guint n = 12 * HOP;
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (n, 1, 41), *y, *ref;
  GstBuffer *held = f32_buffer (x, n / 2, 1, 0);
  GstBuffer *own = f32_buffer (x + n / 2, n / 2, 1, n / 2);
  GstMapInfo map;

  /* Not writable (two references): must stay untouched. */
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (held)),
      GST_FLOW_OK);
  /* Writable: processed where it is. */
  fail_unless_equals_int (gst_harness_push (h, own), GST_FLOW_OK);
  fail_unless (gst_buffer_map (held, &map, GST_MAP_READ));
  fail_unless (memcmp (map.data, x, (n / 2) * sizeof (gfloat)) == 0,
      "a buffer held elsewhere was written to");
  gst_buffer_unmap (held, &map);
  gst_harness_push_event (h, gst_event_new_eos ());
  fail_unless_equals_int (pull_all (h, 1, &y, 0), n);
  fail_unless_equals_int (reference_output (x, n, 1, &ref), n);
  assert_bits_equal (ref, y, n);
  gst_buffer_unref (held);
  g_free (x);
  g_free (y);
  g_free (ref);
  gst_harness_teardown (h);
}

GST_END_TEST;

void
rnndenoise_add_stream_tests (Suite *s)
{
  TCase *tc;

  tc = tcase_create ("stream");
  tcase_add_test (tc, test_output_matches_processor);
  tcase_add_loop_test (tc, test_eos_exact_sample_count, 0,
      G_N_ELEMENTS (eos_buffer_sizes));
  tcase_add_test (tc, test_s16_round_trip_count);
  tcase_add_test (tc, test_in_place_only_when_writable);
  tcase_add_test (tc, test_latency_query);
  tcase_add_test (tc, test_low_latency_aligned);
  tcase_add_test (tc, test_low_latency_unaligned);
  tcase_add_test (tc, test_empty_and_odd_buffers);
  tcase_add_test (tc, test_nonfinite_input_warns_and_recovers);
  tcase_add_test (tc, test_gap_passes_through);
  tcase_add_test (tc, test_time_jump_and_discont_flags);
  tcase_add_loop_test (tc, test_odd_streams, 0, ODD_DC + 1);
  tcase_add_test (tc, test_launch_without_pad_names);
  suite_add_tcase (s, tc);
}
