/* rnndenoise — element tests: pad names and the plain filter shape
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnndenoise-helpers.h"

/* ---------------------------------------------------------------------
 * The first stream on always pads, more streams on request pads
 * --------------------------------------------------------------------- */

static void
assert_presence (GstElement *e, const gchar *name, GstPadPresence presence)
{
  GstPad *pad = gst_element_get_static_pad (e, name);
  GstPadTemplate *templ;

  fail_unless (pad != NULL, "no pad %s", name);
  templ = gst_pad_get_pad_template (pad);
  fail_unless (templ != NULL);
  fail_unless_equals_int (GST_PAD_TEMPLATE_PRESENCE (templ), presence);
  gst_object_unref (templ);
  gst_object_unref (pad);
}

/* An application that expects a filter finds "sink" and "src". */
GST_START_TEST (test_static_sink_and_src)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);

  assert_presence (e, "sink", GST_PAD_ALWAYS);
  assert_presence (e, "src", GST_PAD_ALWAYS);
  fail_unless_equals_int (e->numsinkpads, 1);
  fail_unless_equals_int (e->numsrcpads, 1);
  fail_unless (gst_element_get_static_pad (e, "sink_0") == NULL);
  gst_object_unref (e);
}

GST_END_TEST;

/* More streams are requested as sink_%u, numbered from 1, each with its
 * src_%u; sink_0 does not exist (the first stream is "sink"). */
GST_START_TEST (test_request_more_streams)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GstPad *s1 = gst_element_request_pad_simple (e, "sink_%u");
  GstPad *s2 = gst_element_request_pad_simple (e, "sink_%u");
  GstPad *s5 = gst_element_request_pad_simple (e, "sink_5");

  fail_unless_equals_string (GST_PAD_NAME (s1), "sink_1");
  fail_unless_equals_string (GST_PAD_NAME (s2), "sink_2");
  fail_unless_equals_string (GST_PAD_NAME (s5), "sink_5");
  assert_presence (e, "src_1", GST_PAD_SOMETIMES);
  assert_presence (e, "src_2", GST_PAD_SOMETIMES);
  assert_presence (e, "src_5", GST_PAD_SOMETIMES);
  fail_unless (gst_element_request_pad_simple (e, "sink_0") == NULL);
  gst_element_release_request_pad (e, s2);
  fail_unless (gst_element_get_static_pad (e, "src_2") == NULL);
  assert_presence (e, "sink", GST_PAD_ALWAYS);
  gst_object_unref (s1);
  gst_object_unref (s2);
  gst_object_unref (s5);
  /* Disposing releases the requested streams; the always pads go too. */
  gst_object_unref (e);
}

GST_END_TEST;

/* The first stream's state pad is state_0, whether requested by name or
 * without one; the next stream's is state_1. */
GST_START_TEST (test_state_pad_names)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GstPad *st0 = gst_element_request_pad_simple (e, "state_%u");
  GstPad *s1 = gst_element_request_pad_simple (e, "sink_%u");
  GstPad *st1 = gst_element_request_pad_simple (e, "state_%u");

  fail_unless_equals_string (GST_PAD_NAME (st0), "state_0");
  fail_unless_equals_string (GST_PAD_NAME (st1), "state_1");
  gst_element_release_request_pad (e, st0);
  gst_object_unref (st0);
  st0 = gst_element_request_pad_simple (e, "state_0");
  fail_unless (st0 != NULL);
  gst_element_release_request_pad (e, st0);
  gst_element_release_request_pad (e, st1);
  gst_element_release_request_pad (e, s1);
  gst_object_unref (st0);
  gst_object_unref (st1);
  gst_object_unref (s1);
  gst_object_unref (e);
}

GST_END_TEST;

/* A harness made the plain way, gst_harness_new ("rnndenoise"), streams
 * the first stream; its state pad state_0 follows it, and the actions take
 * "sink", "src" and "state_0" for it. */
GST_START_TEST (test_plain_harness_and_state_0)
{
  const guint n = 20 * HOP;
  GstHarness *h = gst_harness_new ("rnndenoise");
  GstHarness *hs = gst_harness_new_with_element (h->element, NULL, "state_0");
  gfloat *x = make_signal (n, 1, 31), *y, *ref;
  GBytes *a, *b, *c;
  GstBuffer *state;
  guint states = 0;

  gst_harness_set_src_caps_str (h, F32_CAPS (1));
  gst_harness_set_sink_caps_str (hs, "application/x-rnn-state,format=F32LE");
  push_signal (h, x, n, 1, HOP, 0);
  while ((state = gst_harness_try_pull (hs)) != NULL) {
    states++;
    gst_buffer_unref (state);
  }
  fail_unless (states > 0, "no state on state_0");
  a = export_state (h->element, "sink");
  b = export_state (h->element, "src");
  c = export_state (h->element, "state_0");
  fail_unless (a != NULL && b != NULL && c != NULL);
  fail_unless (snapshot_content_equal (a, b));
  fail_unless (snapshot_content_equal (a, c));
  fail_unless (export_state (h->element, "sink_0") == NULL);
  fail_unless (export_state (h->element, "src_0") == NULL);
  gst_harness_push_event (h, gst_event_new_eos ());
  fail_unless_equals_int (pull_all (h, 1, &y, 0), n);
  fail_unless_equals_int (reference_output (x, n, 1, &ref), n);
  assert_bits_equal (ref, y, n);
  g_bytes_unref (a);
  g_bytes_unref (b);
  g_bytes_unref (c);
  g_free (x);
  g_free (y);
  g_free (ref);
  gst_harness_teardown (hs);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* gst_parse_launch links "! rnndenoise !" with no pad names. */
GST_START_TEST (test_parse_launch_without_pad_names)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("audiotestsrc num-buffers=25 ! "
                                           "audio/x-raw,rate=48000 ! "
                                           "rnndenoise ! fakesink",
      &error);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  fail_unless (error == NULL, "%s", error ? error->message : "");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timed out");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* The templates and the caps query name the models' rates only, in any
 * state: upstream that cannot give one fails at linking. */
GST_START_TEST (test_caps_only_model_rate)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  const gchar *names[] = { "sink", "src", "sink_%u", "src_%u" };
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *caps, *at44;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstPadTemplate *t = gst_element_get_pad_template (e, names[i]);
    GstStructure *s = gst_caps_get_structure (GST_PAD_TEMPLATE_CAPS (t), 0);
    const GValue *rates = gst_structure_get_value (s, "rate");

    fail_unless (rates != NULL && GST_VALUE_HOLDS_LIST (rates), "%s", names[i]);
    fail_unless_equals_int (gst_value_list_get_size (rates), 2);
    fail_unless_equals_int (g_value_get_int (
                                gst_value_list_get_value (rates, 0)),
        RATE);
    fail_unless_equals_int (g_value_get_int (
                                gst_value_list_get_value (rates, 1)),
        16000);
  }
  at44 = gst_caps_from_string ("audio/x-raw,format=F32LE,rate=44100,"
                               "channels=1,layout=interleaved");
  caps = gst_pad_query_caps (sink, NULL);
  fail_if (gst_caps_can_intersect (caps, at44), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  caps = gst_pad_query_caps (sink, NULL);
  fail_if (gst_caps_can_intersect (caps, at44), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_caps_unref (at44);
  gst_object_unref (sink);
  gst_object_unref (e);
}

GST_END_TEST;

void
rnndenoise_add_pad_tests (Suite *s)
{
  TCase *tc;

  tc = tcase_create ("pads");
  tcase_add_test (tc, test_static_sink_and_src);
  tcase_add_test (tc, test_request_more_streams);
  tcase_add_test (tc, test_state_pad_names);
  tcase_add_test (tc, test_plain_harness_and_state_0);
  tcase_add_test (tc, test_parse_launch_without_pad_names);
  tcase_add_test (tc, test_caps_only_model_rate);
  suite_add_tcase (s, tc);
}
