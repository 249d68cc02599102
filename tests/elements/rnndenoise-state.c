/* rnndenoise — element tests: persistence, the state pad, fan-out, resets, migration
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnndenoise-helpers.h"

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
  g_signal_emit_by_name (b->element, "reset", "sink", &found);
  fail_unless (found);
  /* The whole state is the initial one: hidden state and DSP history. */
  initial = export_state (fresh->element, "sink");
  state_b = export_state (b->element, "sink");
  fail_unless (snapshot_content_equal (state_b, initial));
  g_bytes_unref (state_b);
  push_signal (b, x + HOP, HOP, 1, HOP, HOP);
  push_signal (fresh, x + HOP, HOP, 1, HOP, HOP);

  state_a = export_state (a->element, "sink");
  state_b = export_state (b->element, "sink");
  state_fresh = export_state (fresh->element, "sink");
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
    snap = export_state (h->element, "sink");
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
  snap = export_state (h->element, "sink");
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
  GstPad *sinkpad = gst_element_get_static_pad (h->element, "sink");
  GstPad *unlinked = gst_element_get_static_pad (u->element, "sink");
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
  fail_unless_equals_int (pull_all (h, 1, &y, 0), 4 * HOP - LATENCY);
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
  GBytes *snap = export_state (element, "sink");
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
  before = export_state (h->element, "sink");

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
  after = export_state (h->element, "sink");
  initial = export_state (fresh->element, "sink");
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
  fresh = export_state (other->element, "sink");
  push_signal (h, x, 4800, 1, 1000, 0);
  g_signal_emit_by_name (h->element, "reset", "sink", &ok);
  push_signal (h, x + 4800, 4800, 1, 1000, 4800);
  fail_unless (import_state (h->element, "sink", fresh));
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
  a = export_state (h->element, "sink");
  b = export_state (fresh->element, "sink");
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
  GstHarness *h2 = gst_harness_new ("rnndenoise");
  guint n_whole, n_first, n_second;
  GBytes *snap;

  push_signal (ref, x, n, channels, chunk, 0);
  gst_harness_push_event (ref, gst_event_new_eos ());
  n_whole = pull_all (ref, channels, &whole, 0);
  fail_unless_equals_int (n_whole, n);

  push_signal (h1, x, split, channels, chunk, 0);
  n_first = pull_all (h1, channels, &part1, 0);
  snap = export_state (h1->element, "sink");
  fail_unless (snap != NULL);

  /* Set before the stream starts: survives STREAM_START and caps. */
  fail_unless (import_state (h2->element, "sink", snap));
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

void
rnndenoise_add_state_tests (Suite *s)
{
  TCase *tc;

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
}
