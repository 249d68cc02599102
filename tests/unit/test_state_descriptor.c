/* rnndenoise — Check suite for state/rnn_state_descriptor and quantisation
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_main.h"

#include "state/rnn_state_descriptor.h"
#include "state/rnn_state_error.h"
#include "state/rnn_state_quant.h"

static void
make_gru_desc (RnnStateDescriptor *desc)
{
  const guint32 hidden[3] = { 24, 48, 96 };

  rnn_state_descriptor_init (desc, 0x1234abcdull, RNN_STATE_CELL_GRU, 2, 3,
      hidden, 960);
}

START_TEST (test_init_is_valid)
{
  RnnStateDescriptor desc;
  GError *error = NULL;

  make_gru_desc (&desc);
  ck_assert (rnn_state_descriptor_validate (&desc, &error));
  ck_assert_ptr_null (error);
  ck_assert_uint_eq (rnn_state_descriptor_n_values (&desc), 2 * (24 + 48 + 96));
  ck_assert_uint_eq (rnn_state_descriptor_layer_offset (&desc, 1), 48);
  ck_assert_uint_eq (rnn_state_descriptor_layer_offset (&desc, 2), 144);
  ck_assert_uint_eq (rnn_state_descriptor_hidden_bytes (&desc),
      4 * 2 * (24 + 48 + 96));
  rnn_state_descriptor_set_element_type (&desc, RNN_STATE_ELEMENT_S8, 1.0f);
  ck_assert_uint_eq (rnn_state_descriptor_hidden_bytes (&desc),
      2 * (24 + 48 + 96));
}
END_TEST

/* spoil_field (desc, i) breaks one bound; the message must name field i. */
static const gchar *const invalid_fields[] = {
  "format version",
  "cell kind",
  "direction",
  "batch",
  "layer count",
  "hidden size",
  "element type",
  "DSP history",
  "scale",
  "zero point",
};

static void
spoil_field (RnnStateDescriptor *desc, guint i)
{
  switch (i) {
    case 0:
      desc->format_version = 99;
      break;
    case 1:
      desc->cell = (RnnStateCellKind) 7;
      break;
    case 2:
      desc->direction = (RnnStateDirection) 5;
      break;
    case 3:
      desc->batch = RNN_STATE_MAX_BATCH + 1;
      break;
    case 4:
      desc->n_layers = RNN_STATE_MAX_LAYERS + 1;
      break;
    case 5:
      desc->hidden[1] = RNN_STATE_MAX_HIDDEN + 1;
      break;
    case 6:
      desc->element_type = (RnnStateElementType) 9;
      break;
    case 7:
      desc->history_size = RNN_STATE_MAX_HISTORY + 1;
      break;
    case 8:
      rnn_state_descriptor_set_element_type (desc, RNN_STATE_ELEMENT_S8, 1.0f);
      desc->scale[2] = NAN;
      break;
    case 9:
      rnn_state_descriptor_set_element_type (desc, RNN_STATE_ELEMENT_S8, 1.0f);
      desc->zero_point[0] = 300;
      break;
    default:
      g_assert_not_reached ();
  }
}

START_TEST (test_invalid_field)
{
  RnnStateDescriptor desc;
  GError *error = NULL;

  make_gru_desc (&desc);
  spoil_field (&desc, _i);
  ck_assert (!rnn_state_descriptor_validate (&desc, &error));
  ck_assert (g_error_matches (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID));
  ck_assert_msg (strstr (error->message, invalid_fields[_i]) != NULL,
      "\"%s\" does not name \"%s\"", error->message, invalid_fields[_i]);
  g_clear_error (&error);
}
END_TEST

START_TEST (test_layout_mismatch_names_field)
{
  RnnStateDescriptor a, b;
  GError *error = NULL;

  make_gru_desc (&a);
  b = a;
  b.hidden[2] = 48;
  ck_assert (!rnn_state_descriptor_check_layout (&a, &b, &error));
  ck_assert_str_eq (error->message,
      "hidden size of layer 2 is 48, stream expects 96");
  g_clear_error (&error);

  b = a;
  rnn_state_descriptor_set_element_type (&b, RNN_STATE_ELEMENT_S16, 1.0f);
  ck_assert (rnn_state_descriptor_check_layout (&a, &b, NULL));
  ck_assert (!rnn_state_descriptor_equal (&a, &b, &error));
  ck_assert_str_eq (error->message, "element type F32, other is S16");
  g_clear_error (&error);
  ck_assert (rnn_state_descriptor_equal (&a, &a, NULL));
}
END_TEST

START_TEST (test_quantize_round_trip)
{
  static const RnnStateElementType types[]
      = { RNN_STATE_ELEMENT_F32, RNN_STATE_ELEMENT_S16, RNN_STATE_ELEMENT_S8 };
  RnnStateDescriptor desc;
  gfloat values[2 * 168], back[2 * 168];
  gint8 raw[4 * 2 * 168];
  guint i, t, l;

  for (t = 0; t < G_N_ELEMENTS (types); t++) {
    make_gru_desc (&desc);
    rnn_state_descriptor_set_element_type (&desc, types[t], 1.0f);
    desc.zero_point[1] = types[t] == RNN_STATE_ELEMENT_F32 ? 0 : 3;
    for (i = 0; i < G_N_ELEMENTS (values); i++)
      values[i] = sinf (0.37f * i) * 0.9f;
    rnn_state_quantize (&desc, values, raw);
    rnn_state_dequantize (&desc, raw, back);
    for (l = 0; l < desc.n_layers; l++) {
      gsize b = rnn_state_descriptor_layer_offset (&desc, l);
      gsize e = rnn_state_descriptor_layer_offset (&desc, l + 1);
      gfloat half_step = rnn_state_quant_step (&desc, l) / 2.0f;

      for (i = b; i < e; i++) {
        if (types[t] == RNN_STATE_ELEMENT_F32)
          ck_assert (memcmp (&values[i], &back[i], 4) == 0);
        else
          ck_assert_float_le (fabsf (values[i] - back[i]), half_step * 1.0001f);
      }
    }
  }
}
END_TEST

START_TEST (test_quantize_saturates_and_nan)
{
  RnnStateDescriptor desc;
  const guint32 hidden[1] = { 4 };
  const gfloat values[4] = { 5.0f, -5.0f, NAN, INFINITY };
  gint8 q[4];

  rnn_state_descriptor_init (&desc, 1, RNN_STATE_CELL_GRU, 1, 1, hidden, 0);
  rnn_state_descriptor_set_element_type (&desc, RNN_STATE_ELEMENT_S8, 1.0f);
  rnn_state_quantize (&desc, values, q);
  ck_assert_int_eq (q[0], 127);
  ck_assert_int_eq (q[1], -128);
  ck_assert_int_eq (q[2], 0);
  ck_assert_int_eq (q[3], 127);
}
END_TEST

static Suite *
state_descriptor_suite (void)
{
  Suite *s = suite_create ("state-descriptor");
  TCase *tc;

  tc = tcase_create ("bounds");
  tcase_add_test (tc, test_init_is_valid);
  tcase_add_loop_test (tc, test_invalid_field, 0,
      G_N_ELEMENTS (invalid_fields));
  suite_add_tcase (s, tc);

  tc = tcase_create ("compare");
  tcase_add_test (tc, test_layout_mismatch_names_field);
  suite_add_tcase (s, tc);

  tc = tcase_create ("quantisation");
  tcase_add_test (tc, test_quantize_round_trip);
  tcase_add_test (tc, test_quantize_saturates_and_nan);
  suite_add_tcase (s, tc);
  return s;
}

RNN_CHECK_MAIN (state_descriptor_suite);
