/* rnndenoise — rnndenoise-model: inspect model files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   rnndenoise-model info FILE
 *
 * Prints the header, the layers and the identity of a model file, or the
 * loader's error (exit status 1) if the file is not a usable model.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "dsp/dsp_model.h"

static void
print_info (const gchar *path, const DspModel *model)
{
  const DspFrameConfig *cfg = dsp_model_get_frame_config (model);
  guint i;

  printf ("file:            %s\n", path);
  printf ("format version:  %u\n", dsp_model_get_format_version (model));
  printf ("sample rate:     %u Hz\n", cfg->sample_rate);
  printf ("hop:             %u samples\n", cfg->hop);
  printf ("window:          %u samples\n", cfg->window);
  printf ("bands:           %u\n", cfg->n_bands);
  printf ("band edges:     ");
  for (i = 0; i <= cfg->n_bands; i++)
    printf (" %u", cfg->band_edges[i]);
  printf ("\n");
  printf ("feature layout:  %u (%u features)\n", cfg->feature_layout_id,
      dsp_model_get_n_features (model));
  printf ("lookahead:       %u frame(s) ahead (%u inputs per row)\n",
      dsp_model_get_lookahead (model), dsp_model_get_n_inputs (model));
  printf ("speech protection: %g%s\n",
      (gdouble) dsp_model_get_speech_protection (model),
      dsp_model_get_format_version (model) == 1 ? " (the default: a version 1 "
                                                  "file names none)"
                                                : "");
  if (dsp_model_get_n_bin_gains (model) > 0)
    printf ("bin gains:       bins 0..%u corrected by layer %u\n",
        dsp_model_get_n_bin_gains (model) - 1, dsp_model_get_bin_layer (model));
  printf ("layers:          %u (%u GRU)\n", dsp_model_get_n_layers (model),
      dsp_model_get_n_gru_layers (model));
  for (i = 0; i < dsp_model_get_n_layers (model); i++) {
    DspLayerInfo info;
    gchar *input;

    dsp_model_get_layer_info (model, i, &info);
    input = info.input == DSP_MODEL_INPUT_FEATURES
        ? g_strdup ("features")
        : g_strdup_printf ("layer %u", info.input - 1);
    printf ("  %2u: %-5s %4u -> %-4u %-7s %-6s input %-8s params "
            "%" G_GSIZE_FORMAT "%s%s%s\n",
        i, dsp_layer_kind_name (info.kind), info.input_size, info.output_size,
        info.kind == DSP_LAYER_GRU ? "-"
                                   : dsp_activation_name (info.activation),
        dsp_weight_type_name (info.weight_type), input, info.n_params,
        i == dsp_model_get_gain_layer (model) ? " [gains]" : "",
        i == dsp_model_get_vad_layer (model) ? " [vad]" : "",
        dsp_model_get_n_bin_gains (model) > 0
                && i == dsp_model_get_bin_layer (model)
            ? " [bin gains]"
            : "");
    g_free (input);
  }
  printf ("parameters:      %" G_GSIZE_FORMAT "\n",
      dsp_model_get_n_params (model));
  printf ("model id:        %016" G_GINT64_MODIFIER "x\n",
      dsp_model_get_id (model));
  printf ("checksum:        CRC-32 %08x (ok)\n",
      dsp_model_get_checksum (model));
}

static void
usage (FILE *out)
{
  fprintf (out, "usage: rnndenoise-model info FILE\n");
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  DspModel *model;

  if (argc == 2
      && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)) {
    usage (stdout);
    return 0;
  }
  if (argc != 3 || strcmp (argv[1], "info") != 0) {
    usage (stderr);
    return 2;
  }

  model = dsp_model_new_from_file (argv[2], &error);
  if (model == NULL) {
    fprintf (stderr, "rnndenoise-model: %s\n", error->message);
    g_clear_error (&error);
    return 1;
  }
  print_info (argv[2], model);
  dsp_model_unref (model);
  return 0;
}
