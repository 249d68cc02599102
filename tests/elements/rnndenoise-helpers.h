/* rnndenoise — element tests: the helpers every test file uses
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RNNDENOISE_TEST_HELPERS_H
#define RNNDENOISE_TEST_HELPERS_H

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
/* The built-in 48 kHz model reads one frame ahead: its latency is the
 * window (two hops) and that frame. */
#define FRAMES_AHEAD 1
#define LATENCY ((2 + FRAMES_AHEAD) * HOP)
#define LATENCY_NS ((GstClockTime) LATENCY * GST_SECOND / RATE)
#define F32_CAPS(ch) \
  "audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=" #ch
#define S16_CAPS(ch) \
  "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=" #ch

DspModel *load_model_from_env (const gchar *variable);

DspModel *load_model (void);

gfloat *make_signal (guint n, guint channels, guint32 seed);

GstBuffer *f32_buffer (const gfloat *x, guint n, guint channels,
    guint64 first_sample);

GstHarness *new_stream_harness (const gchar *caps);

GstHarness *new_harness_with (const gchar *caps, const gchar *first_property,
    ...) G_GNUC_NULL_TERMINATED;

void push_signal (GstHarness *h, const gfloat *x, guint n, guint channels,
    guint chunk, guint64 first_sample);

guint pull_at_rate (GstHarness *h, guint channels, gfloat **out,
    guint64 first_sample, guint rate);

guint pull_all (GstHarness *h, guint channels, gfloat **out,
    guint64 first_sample);

guint reference_run (const gfloat *x, guint n, guint channels, gfloat **out,
    GBytes **state);

guint reference_output (const gfloat *x, guint n, guint channels, gfloat **out);

void assert_bits_equal (const gfloat *a, const gfloat *b, gsize n);

GBytes *export_state (GstElement *element, const gchar *pad);

gboolean import_state (GstElement *element, const gchar *pad, GBytes *bytes);

gfloat *snapshot_hidden (GBytes *bytes, gsize *n_values);

gboolean snapshot_content_equal (GBytes *a, GBytes *b);

GBytes *content_of (GBytes *snapshot);

GBytes *snapshot_content (GstElement *element);

gboolean all_zero (const gfloat *v, gsize n);

GBytes *mono_snapshot (void);

/* One function per test file, each adding its test case to the suite. */
void rnndenoise_add_pad_tests (Suite *s);
void rnndenoise_add_stream_tests (Suite *s);
void rnndenoise_add_state_tests (Suite *s);
void rnndenoise_add_error_tests (Suite *s);
void rnndenoise_add_property_tests (Suite *s);
void rnndenoise_add_contract_tests (Suite *s);
void rnndenoise_add_concurrency_tests (Suite *s);
void rnndenoise_add_rate_tests (Suite *s);

#endif /* RNNDENOISE_TEST_HELPERS_H */
