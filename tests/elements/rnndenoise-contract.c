/* rnndenoise — element tests: the state contract seen from outside: counts, flags, flows, events
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnndenoise-helpers.h"

/* ---------------------------------------------------------------------
 * The contract seen from outside: counts, flags, flows, events
 * --------------------------------------------------------------------- */

/* Pushes @n samples in buffers of @chunk and calls @action once, at the
 * first buffer boundary at or after sample @at (never before the first
 * buffer: this is mid-stream). */
typedef enum
{
  MID_IMPORT_MATURE, /* a state whose pre-roll is behind it */
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
      fail_unless (import_state (element, "sink", mature));
      break;
    case MID_IMPORT_FRESH:
      fail_unless (import_state (element, "sink", fresh));
      break;
    case MID_RESET:
      g_signal_emit_by_name (element, "reset", "sink", &ok);
      break;
    case MID_IMPORT_THEN_RESET:
      fail_unless (import_state (element, "sink", mature));
      g_signal_emit_by_name (element, "reset", "sink", &ok);
      break;
    case MID_RESET_THEN_IMPORT:
      g_signal_emit_by_name (element, "reset", "sink", &ok);
      fail_unless (import_state (element, "sink", mature));
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

    fresh = export_state (m->element, "sink");
    push_signal (m, x, 2 * LATENCY, 1, HOP, 0);
    mature = export_state (m->element, "sink");
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

/* A GAP buffer's output carries the previous 30 ms (the latency) of real
 * audio: only output that is silence may carry the GAP flag. */
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
    /* The buffers out with the first GAP inputs carry speech: 3..5. */
    if (index + LATENCY / HOP >= 6 && index < 6)
      fail_if (silent);
    gst_buffer_unref (buf);
    index++;
  }
  fail_unless_equals_int (index, 12 - LATENCY / HOP);
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
  GstHarness *h = gst_harness_new ("rnndenoise");
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
  GstHarness *h0 = gst_harness_new ("rnndenoise");
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
  /* Enough input for one frame out, then one more. */
  const guint head = LATENCY + HOP;
  gfloat *x = make_signal (head + HOP, 1, 43), *y;
  GBytes *before, *after, *expected;
  GstBuffer *buf;

  g_object_set (h->element, "reset-on-discont", reset_on_discont, NULL);
  push_signal (h, x, head, 1, HOP, 0);
  fail_unless_equals_int (pull_all (h, 1, &y, 0), HOP);
  g_free (y);
  before = export_state (h->element, "sink");
  buf = gst_buffer_new ();
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (head, GST_SECOND, RATE);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  /* Nothing drained, nothing reset. */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  after = export_state (h->element, "sink");
  fail_unless (snapshot_content_equal (before, after));
  g_bytes_unref (after);

  /* The next buffer with samples is the discontinuity. */
  push_signal (h, x + head, HOP, 1, HOP, head);
  push_signal (fresh, x + head, HOP, 1, HOP, head);
  after = export_state (h->element, "sink");
  expected = export_state (fresh->element, "sink");
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
  GstPad *pad = gst_element_get_static_pad (element, "sink");
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
  GstHarness *h2 = gst_harness_new ("rnndenoise");
  GBytes *snap;
  guint64 resets;

  push_signal (ref, x, n, 1, 1000, 0);
  gst_harness_push_event (ref, gst_event_new_eos ());
  fail_unless_equals_int (pull_all (ref, 1, &whole, 0), n);
  push_signal (h1, x, split, 1, 1000, 0);
  n_first = pull_all (h1, 1, &part1, 0);
  snap = export_state (h1->element, "sink");

  if (what == SURVIVE_READY_TO_PAUSED) {
    fail_unless_equals_int (gst_element_set_state (h2->element,
                                GST_STATE_READY),
        GST_STATE_CHANGE_SUCCESS);
    fail_unless (import_state (h2->element, "sink", snap));
    resets = stat_of (h2->element, "resets");
    fail_unless_equals_int (gst_element_set_state (h2->element,
                                GST_STATE_PLAYING),
        GST_STATE_CHANGE_SUCCESS);
    /* READY->PAUSED reset the stream, and kept the import. */
    fail_unless_equals_uint64 (stat_of (h2->element, "resets"), resets + 1);
    gst_harness_set_src_caps_str (h2, F32_CAPS (1));
  } else {
    fail_unless (import_state (h2->element, "sink", snap));
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
  GstHarness *h = gst_harness_new ("rnndenoise");
  GstHarness *fresh = new_stream_harness (F32_CAPS (1));
  gfloat *x = make_signal (4 * HOP, 1, 45);
  GBytes *snap = mono_snapshot (), *got, *expected;
  gboolean ok;

  if (midstream) {
    gst_harness_set_src_caps_str (h, F32_CAPS (1));
    push_signal (h, x, 2 * HOP, 1, HOP, 0);
  }
  fail_unless (import_state (h->element, "sink", snap));
  g_signal_emit_by_name (h->element, "reset", "sink", &ok);
  fail_unless (ok);
  if (!midstream)
    gst_harness_set_src_caps_str (h, F32_CAPS (1));
  push_signal (h, x + 2 * HOP, HOP, 1, HOP, 2 * HOP);
  push_signal (fresh, x + 2 * HOP, HOP, 1, HOP, 2 * HOP);
  got = export_state (h->element, "sink");
  expected = export_state (fresh->element, "sink");
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
  GstPad *pad = gst_element_get_static_pad (h->element, "sink");
  gfloat *x = make_signal (6 * HOP, 1, 46), *y, *ref;
  GstStructure *stats = NULL;
  GBytes *snap = mono_snapshot ();
  GstCaps *caps;
  guint got;

  push_signal (h, x, LATENCY + HOP, 1, HOP, 0);
  fail_unless (import_state (h->element, "sink", snap));
  gst_buffer_unref (gst_harness_pull (h)); /* the one output so far */
  fail_unless_equals_int (gst_element_set_state (h->element, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (export_state (h->element, "sink") == NULL);
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
  GstHarness *h = gst_harness_new ("rnndenoise");
  GstHarness *fresh = new_stream_harness (S16_CAPS (1));
  gfloat *x = make_signal (4 * HOP, 1, 47);
  GBytes *snap = mono_snapshot (), *got, *expected;

  fail_unless (import_state (h->element, "sink", snap));
  gst_harness_set_src_caps_str (h, F32_CAPS (1));
  push_signal (h, x, 2 * HOP, 1, HOP, 0);
  fail_unless_equals_uint64 (stat_of (h->element, "imports"), 1);
  /* Same channel count, so the import would still fit. */
  gst_harness_set_src_caps_str (h, S16_CAPS (1));
  push_signal (h, x + 2 * HOP, HOP, 1, HOP, 2 * HOP);
  push_signal (fresh, x + 2 * HOP, HOP, 1, HOP, 2 * HOP);
  got = export_state (h->element, "sink");
  expected = export_state (fresh->element, "sink");
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
  GstHarness *h0 = gst_harness_new ("rnndenoise");
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

void
rnndenoise_add_contract_tests (Suite *s)
{
  TCase *tc;

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
}
