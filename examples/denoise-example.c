/* rnndenoise — an application of librnndenoise, built through pkg-config:
 *
 *   cc denoise-example.c $(pkg-config --cflags --libs rnndenoise)
 *
 * With two arguments, denoises a raw file of mono S16LE samples at 48 kHz
 * (IN.raw -> OUT.raw). Without, it checks the library on a synthetic noisy
 * tone: latency, VAD, noise reduction, a snapshot moved to a second stream.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rnndenoise.h>

#define BLOCK 480

static int
denoise_file (const char *in_path, const char *out_path)
{
  FILE *in = fopen (in_path, "rb");
  FILE *out = fopen (out_path, "wb");
  int16_t buf[BLOCK];
  size_t n;
  int err;
  RnnDenoise *st = rnndenoise_new (NULL, 1, &err);

  if (st == NULL || in == NULL || out == NULL) {
    fprintf (stderr, "cannot start: %s\n",
        st == NULL ? rnndenoise_strerror (err) : "cannot open the files");
    return 1;
  }
  while ((n = fread (buf, sizeof buf[0], BLOCK, in)) > 0) {
    rnndenoise_process_int16 (st, buf, buf, (int) n);
    fwrite (buf, sizeof buf[0], n, out);
  }
  rnndenoise_free (st);
  fclose (in);
  fclose (out);
  return 0;
}

/* 1 s of a 220 Hz tone in white noise, denoised by @st. Returns the
 * energy ratio output/input of the last half second. */
static double
run (RnnDenoise *st, const float *x, float *y, int n)
{
  double ein = 0.0, eout = 0.0;
  int i;

  for (i = 0; i < n; i += BLOCK)
    rnndenoise_process_float (st, x + i, y + i, BLOCK);
  for (i = n / 2; i < n; i++) {
    ein += (double) x[i] * x[i];
    eout += (double) y[i] * y[i];
  }
  return eout / ein;
}

static int
self_check (void)
{
  enum
  {
    N = 48000
  };
  static float x[N], y[N], z[N];
  unsigned seed = 1;
  int err, i;
  size_t size = 0;
  void *snap;
  RnnDenoise *a, *b;
  double ratio;

  for (i = 0; i < N; i++) {
    seed = seed * 1103515245u + 12345u;
    x[i] = 0.1f * sinf (2.0f * 3.14159265f * 220.0f * i / 48000.0f)
        + 0.1f * ((float) (seed >> 16) / 32768.0f - 1.0f);
  }
  a = rnndenoise_new (NULL, 1, &err);
  if (a == NULL) {
    fprintf (stderr, "rnndenoise_new: %s\n", rnndenoise_strerror (err));
    return 1;
  }
  printf ("librnndenoise %s: %d Hz, frame %d, latency %d samples\n",
      rnndenoise_version (), rnndenoise_get_sample_rate (a),
      rnndenoise_get_frame_size (a), rnndenoise_get_latency (a));
  ratio = run (a, x, y, N);
  printf ("output/input energy %.3f, last frame voice probability %.3f\n",
      ratio, rnndenoise_get_vad (a));

  /* Move the stream to a second object: the next second is the same. */
  rnndenoise_export_state (a, NULL, &size);
  snap = malloc (size);
  if (snap == NULL || rnndenoise_export_state (a, snap, &size) != 0)
    return 1;
  b = rnndenoise_new (NULL, 1, &err);
  if (rnndenoise_import_state (b, snap, size) != RNNDENOISE_OK) {
    fprintf (stderr, "import: %s\n", rnndenoise_get_error_message (b));
    return 1;
  }
  run (a, x, y, N);
  run (b, x, z, N);
  printf ("snapshot of %zu bytes; continued stream %s\n", size,
      memcmp (y, z, sizeof y) == 0 ? "identical" : "DIFFERENT");
  free (snap);
  rnndenoise_free (a);
  rnndenoise_free (b);
  return ratio < 1.0 && memcmp (y, z, sizeof y) == 0 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  if (argc == 3)
    return denoise_file (argv[1], argv[2]);
  if (argc != 1) {
    fprintf (stderr, "usage: %s [IN.raw OUT.raw]\n", argv[0]);
    return 2;
  }
  return self_check ();
}
