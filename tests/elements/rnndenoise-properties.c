/* rnndenoise — element tests: element and pad properties, control bindings, messages
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnndenoise-helpers.h"
#include "tests/unit/model_helper.h"

#include <glib/gstdio.h>

/* ---------------------------------------------------------------------
 * Properties
 * --------------------------------------------------------------------- */

GST_START_TEST (test_child_proxy_pad_property)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GstPad *first_pad = gst_element_get_static_pad (e, "sink");
  GstPad *pad = gst_element_request_pad_simple (e, "sink_%u");
  gdouble v = 0.0;

  gst_child_proxy_set (GST_CHILD_PROXY (e), "sink::vad-threshold", 0.6, NULL);
  gst_child_proxy_set (GST_CHILD_PROXY (e), "sink_1::vad-threshold", 0.3, NULL);
  g_object_get (first_pad, "vad-threshold", &v, NULL);
  fail_unless (fabs (v - 0.6) < 1e-9);
  g_object_get (pad, "vad-threshold", &v, NULL);
  fail_unless (fabs (v - 0.3) < 1e-9);
  fail_unless_equals_int (gst_child_proxy_get_children_count (
                              GST_CHILD_PROXY (e)),
      2);
  gst_element_release_request_pad (e, pad);
  gst_object_unref (pad);
  gst_object_unref (first_pad);
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
  fail_unless_equals_int (got, 10 * HOP - LATENCY);
  for (i = 0; i < got; i++)
    fail_unless_equals_float (y[i], 0.0f);
  g_free (x);
  g_free (y);
  gst_harness_teardown (h);
}

GST_END_TEST;

typedef void (*ProcessorSetter) (DspProcessor *self, gfloat amount);

/* Voiced syllables, four a second: 19 harmonics of a pitch around 150 Hz,
 * falling off as 1/k, fading in and out over a noise floor. At the
 * syllables' edges the built-in model's band gains below 1 kHz lie
 * between 0.2 and 1, where harmonic-lift acts (make_signal()'s single
 * sine shows no lift: it gives the same output at every harmonic-lift). */
static gfloat *
make_voiced_signal (guint n, guint32 seed)
{
  gfloat *x = g_new (gfloat, n);
  GRand *rand = g_rand_new_with_seed (seed);
  gdouble phase = 0.0;
  guint i, k;

  for (i = 0; i < n; i++) {
    gdouble t = (gdouble) i / RATE;
    gdouble env = sin (2 * G_PI * 2.0 * t);
    gdouble v = 0.0;

    phase += 2 * G_PI * 150.0 * (1.0 + 0.05 * sin (2 * G_PI * 3.0 * t)) / RATE;
    for (k = 1; k < 20; k++)
      v += sin (k * phase) / k;
    x[i] = (gfloat) (0.1 * (0.1 + 0.9 * env * env) * v
        + 0.05 * g_rand_double_range (rand, -1.0, 1.0));
  }
  g_rand_free (rand);
  return x;
}

/* A processor setting's property, on voiced syllables that every gain
 * setting changes: it has the processor's default, reaches the stream (the
 * output equals the processor's at that setting), 0 turns it off, and the
 * output at @amount differs from the output at 0, so that the comparison
 * does show the setting reaching the stream. The element runs the model
 * file @model_path (NULL: the built-in 48 kHz model). */
static void
check_processor_property_on (const gchar *name, gdouble default_value,
    ProcessorSetter set, gdouble amount, const gchar *model_path)
{
  const gdouble amounts[] = { 0.0, amount };
  guint n = 30 * HOP;
  gfloat *x = make_voiced_signal (n, 16);
  gfloat *y, *ref, *off = NULL;
  gdouble value = -1.0;
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  guint k;

  g_object_get (h->element, name, &value, NULL);
  fail_unless_equals_float (value, default_value);
  gst_harness_teardown (h);

  for (k = 0; k < G_N_ELEMENTS (amounts); k++) {
    DspModel *model = model_path != NULL
        ? dsp_model_new_from_file (model_path, NULL)
        : load_model ();
    DspProcessor *p;
    guint produced;

    fail_unless (model != NULL);
    p = dsp_processor_new (model, 1, NULL);
    h = model_path != NULL
        ? new_harness_with (F32_CAPS (1), "model", model_path, NULL)
        : new_stream_harness (F32_CAPS (1));
    g_object_set (h->element, name, amounts[k], NULL);
    push_signal (h, x, n, 1, HOP, 0);
    gst_harness_push_event (h, gst_event_new_eos ());
    fail_unless_equals_int (pull_all (h, 1, &y, 0), n);

    ref = g_new0 (gfloat, n + LATENCY);
    set (p, (gfloat) amounts[k]);
    produced = dsp_processor_process (p, x, ref, n, NULL, NULL, 0, NULL);
    produced += dsp_processor_drain (p, ref + produced);
    fail_unless_equals_int (produced, n);
    assert_bits_equal (ref, y, n);
    if (off != NULL)
      fail_unless (memcmp (off, y, (gsize) n * sizeof (gfloat)) != 0,
          "%s %g gives the output of %s 0", name, amounts[k], name);

    g_free (off);
    off = y;
    g_free (ref);
    dsp_processor_free (p);
    dsp_model_unref (model);
    gst_harness_teardown (h);
  }
  g_free (off);
  g_free (x);
}

static void
check_processor_property (const gchar *name, gdouble default_value,
    ProcessorSetter set, gdouble amount)
{
  check_processor_property_on (name, default_value, set, amount, NULL);
}

GST_START_TEST (test_speech_protection_property)
{
  check_processor_property ("speech-protection", -1.0,
      dsp_processor_set_speech_protection, 2.0);
}

GST_END_TEST;

/* speech-protection -1, the default, is the model file's own: the stream
 * gives what a processor left at its first speech protection gives, also
 * after another value was set and -1 set again. */
GST_START_TEST (test_speech_protection_follows_model)
{
  const gdouble before[] = { -1.0, 1.7 };
  guint n = 30 * HOP;
  gfloat *x = make_voiced_signal (n, 17);
  DspModel *model = load_model ();
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  gfloat *ref = g_new0 (gfloat, n + LATENCY), *y;
  guint produced, k;

  produced = dsp_processor_process (p, x, ref, n, NULL, NULL, 0, NULL);
  produced += dsp_processor_drain (p, ref + produced);
  fail_unless_equals_int (produced, n);
  for (k = 0; k < G_N_ELEMENTS (before); k++) {
    GstHarness *h = new_stream_harness (F32_CAPS (1));

    g_object_set (h->element, "speech-protection", before[k], NULL);
    g_object_set (h->element, "speech-protection", -1.0, NULL);
    push_signal (h, x, n, 1, HOP, 0);
    gst_harness_push_event (h, gst_event_new_eos ());
    fail_unless_equals_int (pull_all (h, 1, &y, 0), n);
    assert_bits_equal (ref, y, n);
    g_free (y);
    gst_harness_teardown (h);
  }
  g_free (ref);
  g_free (x);
  dsp_processor_free (p);
  dsp_model_unref (model);
}

GST_END_TEST;

GST_START_TEST (test_stationary_suppression_property)
{
  check_processor_property ("stationary-suppression",
      DSP_DEFAULT_STATIONARY_SUPPRESSION,
      dsp_processor_set_stationary_suppression, DSP_MAX_STATIONARY_SUPPRESSION);
}

GST_END_TEST;

/* A double property @name of the element: its range (0..@maximum, which
 * GObject enforces), default, flags (controllable, changeable while
 * playing) and set/get round trips at @middle, the maximum and 0. */
static void
check_double_pspec (const gchar *name, gdouble maximum, gdouble default_value,
    gdouble middle)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);
  const gdouble values[] = { middle, maximum, 0.0 };
  GParamSpecDouble *range;
  guint k;

  fail_unless (pspec != NULL, "no property %s", name);
  fail_unless (G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_DOUBLE);
  range = G_PARAM_SPEC_DOUBLE (pspec);
  fail_unless_equals_float (range->minimum, 0.0);
  fail_unless_equals_float (range->maximum, maximum);
  fail_unless_equals_float (range->default_value, default_value);
  fail_unless (pspec->flags & GST_PARAM_CONTROLLABLE);
  fail_unless (pspec->flags & GST_PARAM_MUTABLE_PLAYING);
  for (k = 0; k < G_N_ELEMENTS (values); k++) {
    gdouble value = -1.0;

    g_object_set (e, name, values[k], NULL);
    g_object_get (e, name, &value, NULL);
    fail_unless_equals_float (value, values[k]);
  }
  gst_object_unref (e);
}

/* harmonic-lift: its range (0..DSP_MAX_HARMONIC_LIFT), flags and
 * round trips; then as above, on a voiced signal it changes. */
GST_START_TEST (test_harmonic_lift_property)
{
  check_double_pspec ("harmonic-lift", DSP_MAX_HARMONIC_LIFT,
      DSP_DEFAULT_HARMONIC_LIFT, 1.25);

  check_processor_property ("harmonic-lift", DSP_DEFAULT_HARMONIC_LIFT,
      dsp_processor_set_harmonic_lift, DSP_MAX_HARMONIC_LIFT);
}

GST_END_TEST;

/* speech-hold: its range (0..1), flags and round trips; then as above,
 * with a model file whose network hears speech in every frame (the hold
 * acts only there; the built-in model does not take the test's buzz for
 * a voice). */
GST_START_TEST (test_speech_hold_property)
{
  gchar *path = NULL;
  guint8 *data;
  gsize size;
  gint fd;

  check_double_pspec ("speech-hold", 1.0, DSP_DEFAULT_SPEECH_HOLD, 0.5);
  data = model_helper_vad_fixed_model (RATE, 20.0f, &size);
  fd = g_file_open_tmp ("rnndenoise-speaking-XXXXXX.rnnm", &path, NULL);
  fail_unless (fd >= 0);
  g_close (fd, NULL);
  fail_unless (g_file_set_contents (path, (const gchar *) data, size, NULL));
  check_processor_property_on ("speech-hold", DSP_DEFAULT_SPEECH_HOLD,
      dsp_processor_set_speech_hold, 1.0, path);
  g_unlink (path);
  g_free (path);
  g_free (data);
}

GST_END_TEST;

/* The element's output for @x with the boolean property @name at @on is
 * the processor's with @set_on_processor at that setting, bit for bit;
 * returned, n samples. */
static gfloat *
output_at_setting (const gfloat *x, guint n, const gchar *name, gboolean on,
    void (*set_on_processor) (DspProcessor *, gboolean))
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  DspModel *model = load_model ();
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  gfloat *y, *ref = g_new0 (gfloat, n + LATENCY);
  guint produced;

  g_object_set (h->element, name, on, NULL);
  push_signal (h, x, n, 1, HOP, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  fail_unless_equals_int (pull_all (h, 1, &y, 0), n);
  set_on_processor (p, on);
  produced = dsp_processor_process (p, x, ref, n, NULL, NULL, 0, NULL);
  produced += dsp_processor_drain (p, ref + produced);
  fail_unless_equals_int (produced, n);
  assert_bits_equal (ref, y, n);
  g_free (ref);
  dsp_processor_free (p);
  dsp_model_unref (model);
  gst_harness_teardown (h);
  return y;
}

/* @name is a boolean property, on by default, that can be changed while
 * playing and automated. */
static void
check_boolean_switch (const gchar *name)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GParamSpec *pspec
      = g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);
  gboolean value = FALSE;

  fail_unless (pspec != NULL);
  fail_unless (G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_BOOLEAN);
  fail_unless (G_PARAM_SPEC_BOOLEAN (pspec)->default_value);
  fail_unless (pspec->flags & GST_PARAM_CONTROLLABLE);
  fail_unless (pspec->flags & GST_PARAM_MUTABLE_PLAYING);
  g_object_get (e, name, &value, NULL);
  fail_unless (value);
  g_object_set (e, name, FALSE, NULL);
  g_object_get (e, name, &value, NULL);
  fail_if (value);
  gst_object_unref (e);
}

/* level-normalization: a switch (check_boolean_switch()) that reaches the
 * stream, and turning it off changes what the network hears of a quiet
 * voice (-40 dBFS). */
GST_START_TEST (test_level_normalization_property)
{
  guint n = 30 * HOP, i;
  gfloat *x = make_voiced_signal (n, 21), *on, *off;

  check_boolean_switch ("level-normalization");
  for (i = 0; i < n; i++)
    x[i] *= 0.1f;
  on = output_at_setting (x, n, "level-normalization", TRUE,
      dsp_processor_set_level_normalization);
  off = output_at_setting (x, n, "level-normalization", FALSE,
      dsp_processor_set_level_normalization);
  fail_unless (memcmp (on, off, (gsize) n * sizeof (gfloat)) != 0,
      "level-normalization makes no difference at -40 dBFS");
  g_free (on);
  g_free (off);
  g_free (x);
}

GST_END_TEST;

/* hum-removal: a switch (check_boolean_switch()) that reaches the stream;
 * over a voice with a 60 Hz hum, three seconds long, the output with it
 * on differs from the output with it off. */
GST_START_TEST (test_hum_removal_property)
{
  guint n = 300 * HOP, i, k;
  gfloat *x = make_voiced_signal (n, 22), *on, *off;

  check_boolean_switch ("hum-removal");
  for (i = 0; i < n; i++) {
    for (k = 1; k <= 8; k++)
      x[i] += (gfloat) (0.02 / k * sin (2 * G_PI * 60.0 * k * i / RATE));
  }
  on = output_at_setting (x, n, "hum-removal", TRUE,
      dsp_processor_set_hum_removal);
  off = output_at_setting (x, n, "hum-removal", FALSE,
      dsp_processor_set_hum_removal);
  fail_unless (memcmp (on, off, (gsize) n * sizeof (gfloat)) != 0,
      "hum-removal makes no difference over hum");
  g_free (on);
  g_free (off);
  g_free (x);
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
  fail_unless_equals_int (got, 10 * HOP - LATENCY);
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
      fail_unless_equals_string (gst_structure_get_string (s, "pad"), "sink");
      fail_unless (gst_structure_get_double (s, "vad", &vad));
      fail_unless (vad >= 0.0 && vad <= 1.0);
      count++;
    }
    gst_message_unref (msg);
  }
  /* 0.5 s of input, 30 ms held back, one message per 100 ms. */
  fail_unless_equals_int (count, 4);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  g_free (x);
  gst_harness_teardown (h);
}

GST_END_TEST;

void
rnndenoise_add_property_tests (Suite *s)
{
  TCase *tc;

  tc = tcase_create ("properties");
  tcase_add_test (tc, test_child_proxy_pad_property);
  tcase_add_test (tc, test_vad_gate_property);
  tcase_add_test (tc, test_speech_protection_property);
  tcase_add_test (tc, test_speech_protection_follows_model);
  tcase_add_test (tc, test_stationary_suppression_property);
  tcase_add_test (tc, test_harmonic_lift_property);
  tcase_add_test (tc, test_speech_hold_property);
  tcase_add_test (tc, test_level_normalization_property);
  tcase_add_test (tc, test_hum_removal_property);
  tcase_add_test (tc, test_controlled_properties);
  tcase_add_test (tc, test_messages);
  suite_add_tcase (s, tc);
}
