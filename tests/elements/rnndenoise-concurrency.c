/* rnndenoise — element tests: pads in threads, application threads, request and release
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnndenoise-helpers.h"

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
  GstHarness *h0 = gst_harness_new ("rnndenoise");
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
  state0 = export_state (h0->element, "sink");
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
  GstHarness *h0 = gst_harness_new ("rnndenoise");
  GstHarness *h1
      = gst_harness_new_with_element (h0->element, "sink_1", "src_1");

  gst_harness_set_src_caps_str (h0, F32_CAPS (1));
  gst_harness_set_src_caps_str (h1, F32_CAPS (1));
  push_signal (h0, x0, n / 2, 1, 500, 0);
  push_signal (h1, x1, n / 2, 1, 500, 0);
  /* Tearing down h1 releases sink_1 and src_1 while sink streams on. */
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
    GBytes *snap = export_state (hm->element, "sink");

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
    /* The first stream's sink and src, plus the three requested. */
    fail_unless_equals_int (GST_ELEMENT (e)->numpads, 5);
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
  fail_unless_equals_int (GST_ELEMENT (e)->numpads, 2);
  gst_object_unref (e);
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
  h[0] = gst_harness_new ("rnndenoise");
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
    gchar *name = i == 0 ? g_strdup ("sink") : g_strdup_printf ("sink_%u", i);

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

void
rnndenoise_add_concurrency_tests (Suite *s)
{
  TCase *tc;

  tc = tcase_create ("concurrency");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_two_pads_isolated);
  tcase_add_test (tc, test_release_one_pad_midstream);
  tcase_add_test (tc, test_export_state_under_load);
  tcase_add_test (tc, test_pads_share_no_scratch);
  tcase_add_test (tc, test_request_release_1000_pads);
  suite_add_tcase (s, tc);
}
