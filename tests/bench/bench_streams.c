/* rnndenoise — pipeline benchmark: many streams, and webrtcdsp side by side
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Prints "name value unit" lines. Each configuration runs a pipeline of N
 * streams of pink noise (S16LE, mono, 48 kHz, 10 ms buffers) to fakesinks
 * without clock sync, and reports throughput in audio-seconds per wall
 * second and CPU seconds per audio second, for:
 *   - one rnndenoise element with N pads,
 *   - N separate rnndenoise elements,
 *   - N webrtcdsp elements (echo-cancel=false, strongest noise suppression),
 *   - N identity elements (the cost of sources and sinks alone).
 * Usage: bench_streams [SECONDS_PER_STREAM_AT_ONE_STREAM]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <gst/gst.h>

#define BUFFER_SAMPLES 480
#define RATE 48000
#define SOURCE_CAPS \
  "audio/x-raw,format=S16LE,layout=interleaved," \
  "rate=48000,channels=1"

typedef enum
{
  SHARED_ELEMENT,
  SEPARATE_ELEMENTS,
  WEBRTCDSP,
  IDENTITY,
} Layout;

static const gchar *const layout_names[] = { "rnndenoise_one_element",
  "rnndenoise_separate", "webrtcdsp", "identity" };

static gdouble
process_cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec
      + ru.ru_stime.tv_usec * 1e-6;
}

/* A gst-launch description of @n streams of @buffers buffers each. */
static gchar *
describe (Layout layout, guint n, guint buffers)
{
  GString *s = g_string_new (NULL);
  guint i;

  if (layout == SHARED_ELEMENT)
    g_string_append (s, "rnndenoise name=d ");
  for (i = 0; i < n; i++) {
    g_string_append_printf (s,
        "audiotestsrc wave=pink-noise "
        "num-buffers=%u samplesperbuffer=%d ! " SOURCE_CAPS " ! ",
        buffers, BUFFER_SAMPLES);
    switch (layout) {
      case SHARED_ELEMENT:
        g_string_append_printf (s, "d.sink_%u d.src_%u ! ", i, i);
        break;
      case SEPARATE_ELEMENTS:
        g_string_append (s, "rnndenoise ! ");
        break;
      case WEBRTCDSP:
        g_string_append (s,
            "webrtcdsp echo-cancel=false "
            "noise-suppression-level=very-high ! ");
        break;
      case IDENTITY:
        g_string_append (s, "identity ! ");
        break;
    }
    g_string_append (s, "fakesink sync=false async=false ");
  }
  return g_string_free (s, FALSE);
}

/* Runs one configuration; returns FALSE if it could not run. */
static gboolean
run (Layout layout, guint n, guint buffers, gdouble *wall, gdouble *cpu)
{
  gchar *desc = describe (layout, n, buffers);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstMessage *msg;
  gboolean ok;
  gint64 t0;
  gdouble c0;

  g_free (desc);
  if (pipeline != NULL && error != NULL) {
    fprintf (stderr, "bench_streams: %s\n", error->message);
    g_clear_error (&error);
    gst_object_unref (pipeline);
    return FALSE;
  }
  if (pipeline == NULL) {
    fprintf (stderr, "bench_streams: %s\n", error->message);
    g_clear_error (&error);
    return FALSE;
  }
  c0 = process_cpu_seconds ();
  t0 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      600 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  *wall = (g_get_monotonic_time () - t0) * 1e-6;
  *cpu = process_cpu_seconds () - c0;
  ok = msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg != NULL && !ok) {
    gst_message_parse_error (msg, &error, NULL);
    fprintf (stderr, "bench_streams: %s\n", error->message);
    g_clear_error (&error);
  }
  if (msg != NULL)
    gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return ok;
}

int
main (int argc, char **argv)
{
  static const guint stream_counts[] = { 1, 2, 4, 16, 64 };
  guint seconds = argc > 1 ? (guint) atoi (argv[1]) : 30;
  guint c, l;

  gst_init (&argc, &argv);
  printf ("cpus %u count\n", g_get_num_processors ());
  for (c = 0; c < G_N_ELEMENTS (stream_counts); c++) {
    guint n = stream_counts[c];
    /* The same total audio in every configuration, 5 s per stream at least. */
    guint per_stream = MAX (seconds / n, 5u);
    guint buffers = per_stream * (RATE / BUFFER_SAMPLES);
    gdouble audio = (gdouble) n * per_stream;

    for (l = 0; l < G_N_ELEMENTS (layout_names); l++) {
      gdouble wall, cpu;

      if (!run ((Layout) l, n, buffers, &wall, &cpu))
        continue;
      printf ("%s_%u_streams_throughput %.1f audio_s/wall_s\n", layout_names[l],
          n, audio / wall);
      printf ("%s_%u_streams_cpu %.6f cpu_s/audio_s\n", layout_names[l], n,
          cpu / audio);
    }
  }
  return 0;
}
