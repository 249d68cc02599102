/* rnndenoise — the cost of the element's state pipeline per buffer
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pushes 10 ms buffers straight into one rnndenoise stream (no other
 * element, no queues) with the state pad linked and unlinked, and prints
 * "name value unit" lines: heap allocations per buffer in steady state
 * (every malloc/calloc/realloc of the process is counted while buffers are
 * pushed), ns per buffer, and the slot's counters per buffer (bytes written
 * back, bytes copied to the state pad, whole-state copies).
 * Usage: bench_element [BUFFERS]
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gst/gst.h>

#define HOP 480

extern void *__libc_malloc (size_t size);
extern void *__libc_calloc (size_t n, size_t size);
extern void *__libc_realloc (void *p, size_t size);
static gint counting = 0;
static gint allocations = 0;

/* Counting allocator: forwards to glibc's and counts while armed. */
void *
malloc (size_t size)
{
  if (g_atomic_int_get (&counting))
    g_atomic_int_inc (&allocations);
  return __libc_malloc (size);
}

void *
calloc (size_t n, size_t size)
{
  if (g_atomic_int_get (&counting))
    g_atomic_int_inc (&allocations);
  return __libc_calloc (n, size);
}

void *
realloc (void *p, size_t size)
{
  if (g_atomic_int_get (&counting))
    g_atomic_int_inc (&allocations);
  return __libc_realloc (p, size);
}

static GstFlowReturn
drop_buffer (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  (void) pad;
  (void) parent;
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static gboolean
drop_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  (void) pad;
  (void) parent;
  gst_event_unref (event);
  return TRUE;
}

static GstPad *
make_sink (const gchar *name)
{
  GstPad *pad = gst_pad_new (name, GST_PAD_SINK);

  gst_pad_set_chain_function (pad, drop_buffer);
  gst_pad_set_event_function (pad, drop_event);
  gst_pad_set_active (pad, TRUE);
  return pad;
}

static gdouble
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void
run (gboolean link_state, guint n_buffers)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GstPad *src = gst_pad_new ("feed", GST_PAD_SRC);
  GstPad *audio_sink = make_sink ("audio");
  GstPad *state_sink = make_sink ("state");
  GstPad *sinkpad, *srcpad, *statepad;
  GstBuffer **bufs = g_new (GstBuffer *, n_buffers);
  GstCaps *caps
      = gst_caps_from_string ("audio/x-raw,format=F32LE,"
                              "layout=interleaved,rate=48000,channels=1");
  GstSegment segment;
  GstStructure *stats;
  guint64 invocations = 0, written = 0, side = 0, copies = 0;
  const gchar *label = link_state ? "linked" : "unlinked";
  guint i, warmup = 20;
  gdouble t0, t1;

  sinkpad = gst_element_request_pad_simple (e, "sink_%u");
  statepad = gst_element_request_pad_simple (e, "state_%u");
  srcpad = gst_element_get_static_pad (e, "src_0");
  gst_pad_link (src, sinkpad);
  gst_pad_link (srcpad, audio_sink);
  if (link_state)
    gst_pad_link (statepad, state_sink);
  gst_element_set_state (e, GST_STATE_PLAYING);
  gst_pad_set_active (src, TRUE);
  gst_pad_push_event (src, gst_event_new_stream_start ("bench"));
  gst_pad_push_event (src, gst_event_new_caps (caps));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_pad_push_event (src, gst_event_new_segment (&segment));

  /* Buffers made in advance, each with one reference: the element writes
   * its output into them and the sink frees them. */
  for (i = 0; i < n_buffers; i++) {
    GstMapInfo map;
    guint j;

    bufs[i] = gst_buffer_new_allocate (NULL, HOP * sizeof (gfloat), NULL);
    gst_buffer_map (bufs[i], &map, GST_MAP_WRITE);
    for (j = 0; j < HOP; j++)
      ((gfloat *) map.data)[j] = (gfloat) (0.1 * sin (0.05 * (i * HOP + j)));
    gst_buffer_unmap (bufs[i], &map);
    GST_BUFFER_PTS (bufs[i])
        = gst_util_uint64_scale_int (i * HOP, GST_SECOND, 48000);
  }
  for (i = 0; i < warmup; i++)
    gst_pad_push (src, bufs[i]);

  g_atomic_int_set (&allocations, 0);
  g_atomic_int_set (&counting, 1);
  t0 = now_ns ();
  for (i = warmup; i < n_buffers; i++)
    gst_pad_push (src, bufs[i]);
  t1 = now_ns ();
  g_atomic_int_set (&counting, 0);

  g_object_get (sinkpad, "state-stats", &stats, NULL);
  gst_structure_get_uint64 (stats, "invocations", &invocations);
  gst_structure_get_uint64 (stats, "bytes-written-back", &written);
  gst_structure_get_uint64 (stats, "bytes-side-copied", &side);
  gst_structure_get_uint64 (stats, "copies", &copies);
  gst_structure_free (stats);

  printf ("element_state_%s_allocations_per_buffer %.3f count\n", label,
      (gdouble) g_atomic_int_get (&allocations) / (n_buffers - warmup));
  printf ("element_state_%s_ns_per_buffer %.0f ns\n", label,
      (t1 - t0) / (n_buffers - warmup));
  printf ("element_state_%s_bytes_written_back_per_buffer %.0f bytes\n", label,
      (gdouble) written / invocations);
  printf ("element_state_%s_bytes_to_state_pad_per_buffer %.0f bytes\n", label,
      (gdouble) side / invocations);
  printf ("element_state_%s_copies_per_buffer %.2f copies\n", label,
      (gdouble) copies / invocations);

  gst_pad_push_event (src, gst_event_new_eos ());
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_release_request_pad (e, statepad);
  gst_element_release_request_pad (e, sinkpad);
  gst_object_unref (statepad);
  gst_object_unref (sinkpad);
  gst_object_unref (srcpad);
  gst_object_unref (e);
  gst_object_unref (src);
  gst_object_unref (audio_sink);
  gst_object_unref (state_sink);
  gst_caps_unref (caps);
  g_free (bufs);
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 2000;

  gst_init (&argc, &argv);
  run (TRUE, MAX (n, 40u));
  run (FALSE, MAX (n, 40u));
  return 0;
}
