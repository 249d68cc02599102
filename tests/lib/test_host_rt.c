/* rnndenoise — the plugins' run callbacks allocate nothing: loads the
 * LADSPA and LV2 modules as a host does, and counts malloc, calloc,
 * realloc and free calls (replaced here) during 96000 samples of run()
 * calls in blocks of various sizes (gate and hum removal on, the quality
 * controls away from their defaults), after instantiate and activate, at
 * 48000 and at 16000 Hz, where the latency port must read 1440 and 480.
 * The stereo LV2 plugin runs both without host options (its fixed-size
 * steps) and with bufsz:maxBlockLength, whose interleave buffer
 * instantiate() must allocate. Both plugins must refuse rates without a
 * model (instantiate() returns NULL).
 * Usage: test_host_rt LADSPA_MODULE LV2_MODULE
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ladspa.h>
#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/core/lv2.h>
#include <lv2/options/options.h>
#include <lv2/urid/urid.h>

extern void *__libc_malloc (size_t size);
extern void *__libc_calloc (size_t n, size_t size);
extern void *__libc_realloc (void *p, size_t size);
extern void __libc_free (void *p);

/* Exported, so that the modules' calls come here (-fvisibility=hidden is
 * the project default). */
static int counting;
static long n_allocs;
/* Set when malloc is asked for exactly watch_size bytes. */
static size_t watch_size;
static int watch_seen;

__attribute__ ((visibility ("default"))) void *
malloc (size_t size)
{
  n_allocs += counting;
  watch_seen |= counting && size == watch_size;
  return __libc_malloc (size);
}

__attribute__ ((visibility ("default"))) void *
calloc (size_t n, size_t size)
{
  n_allocs += counting;
  return __libc_calloc (n, size);
}

__attribute__ ((visibility ("default"))) void *
realloc (void *p, size_t size)
{
  n_allocs += counting;
  return __libc_realloc (p, size);
}

__attribute__ ((visibility ("default"))) void
free (void *p)
{
  n_allocs += counting && p != NULL;
  __libc_free (p);
}

#define MAX_BLOCK 4096
#define TOTAL 96000

/* The control ports: 6, then the 5 quality controls. */
#define N_CONTROLS 11

static float in[2][MAX_BLOCK], out[2][MAX_BLOCK], controls[N_CONTROLS];

/* The quality controls' values, in port order after the first 6 controls
 * in both plugins: speech protection, stationary suppression, harmonic
 * lift, speech hold, level normalization. */
static const float quality[N_CONTROLS - 6] = { 1.5f, 2.0f, 1.0f, 0.5f, 0.0f };

static void
set_quality (void)
{
  unsigned i;

  for (i = 6; i < N_CONTROLS; i++)
    controls[i] = quality[i - 6];
}

static const unsigned long blocks[] = { 64, 128, 256, 480, 1000, 4096, 1 };

/* The rates with a built-in model, and the latency port's value at each. */
typedef struct
{
  unsigned long rate;
  float latency;
} Rate;

static const Rate rates[] = { { 48000, 1440.0f }, { 16000, 480.0f } };

#define N_RATES (sizeof rates / sizeof rates[0])

/* Rates instantiate() must refuse: no model, and (LV2 only, whose rate is
 * a double) not a whole number of hertz. */
static const double refused_rates[] = { 44100.0, 0.0, 16000.5 };

#define N_REFUSED_RATES (sizeof refused_rates / sizeof refused_rates[0])

static void
fill (void)
{
  int c, i;

  for (c = 0; c < 2; c++)
    for (i = 0; i < MAX_BLOCK; i++)
      in[c][i] = 0.1f * sinf (0.05f * i + c) + 0.01f * ((i * 7919) % 13 - 6);
}

/* Runs @run_block over TOTAL samples; returns allocations counted. */
static long
count_run (void (*run_block) (void *h, unsigned long n), void *h)
{
  unsigned long done = 0, k = 0, n;

  n_allocs = 0;
  counting = 1;
  while (done < TOTAL) {
    n = blocks[k++ % (sizeof blocks / sizeof blocks[0])];
    run_block (h, n);
    done += n;
  }
  counting = 0;
  return n_allocs;
}

static const LADSPA_Descriptor *ladspa_desc;
static const LV2_Descriptor *lv2_desc;

static void
ladspa_run (void *h, unsigned long n)
{
  ladspa_desc->run (h, n);
}

static void
lv2_run (void *h, unsigned long n)
{
  lv2_desc->run (h, (uint32_t) n);
}

/* One LADSPA label at @r's rate: instantiate allocates (so the counter
 * works), run() does not, and the latency port reads @r's latency. */
static int
test_ladspa_plugin (const Rate *r)
{
  LADSPA_Handle h;
  unsigned long p, ai = 0, ao = 0, c = 0;
  long n;
  int failed;

  n_allocs = 0;
  counting = 1;
  h = ladspa_desc->instantiate (ladspa_desc, r->rate);
  counting = 0;
  if (h == NULL) {
    printf ("LADSPA %s at %lu Hz: instantiate() failed\n", ladspa_desc->Label,
        r->rate);
    return 1;
  }
  failed = n_allocs == 0;
  printf ("LADSPA %s at %lu Hz: %ld allocations in instantiate()\n",
      ladspa_desc->Label, r->rate, n_allocs);

  if (ladspa_desc->PortCount
      != 2 * (ladspa_desc->UniqueID == 9401 ? 1 : 2) + N_CONTROLS) {
    printf ("LADSPA %s: %lu ports\n", ladspa_desc->Label,
        ladspa_desc->PortCount);
    ladspa_desc->cleanup (h);
    return 1;
  }
  for (p = 0; p < ladspa_desc->PortCount; p++) {
    LADSPA_PortDescriptor d = ladspa_desc->PortDescriptors[p];
    if (LADSPA_IS_PORT_AUDIO (d))
      ladspa_desc->connect_port (h, p,
          LADSPA_IS_PORT_INPUT (d) ? in[ai++] : out[ao++]);
    else
      ladspa_desc->connect_port (h, p, &controls[c++]);
  }
  /* In port order (hosts/ladspa/rnndenoise-ladspa.c). */
  controls[0] = 20.0f;  /* attenuation limit */
  controls[1] = 0.5f;   /* VAD threshold */
  controls[3] = -1.0f;  /* latency: run() must write it */
  controls[4] = 100.0f; /* VAD hold */
  controls[5] = 1.0f;   /* hum removal */
  set_quality ();
  ladspa_desc->activate (h);
  n = count_run (ladspa_run, h);
  printf ("LADSPA %s at %lu Hz: %ld allocations in run() over %d samples, "
          "latency port %.0f\n",
      ladspa_desc->Label, r->rate, n, TOTAL, controls[3]);
  failed |= n != 0 || controls[3] != r->latency;
  ladspa_desc->cleanup (h);
  return failed;
}

/* The current LADSPA label refuses the rates without a model. */
static int
test_ladspa_refused (void)
{
  LADSPA_Handle h;
  unsigned i;
  int failed = 0;

  for (i = 0; i < N_REFUSED_RATES; i++) {
    /* LADSPA rates are whole numbers: 16000.5 has no equivalent. */
    if (refused_rates[i] != (double) (unsigned long) refused_rates[i])
      continue;
    h = ladspa_desc->instantiate (ladspa_desc,
        (unsigned long) refused_rates[i]);
    printf ("LADSPA %s at %g Hz: %s\n", ladspa_desc->Label, refused_rates[i],
        h == NULL ? "refused" : "NOT refused");
    if (h != NULL) {
      ladspa_desc->cleanup (h);
      failed = 1;
    }
  }
  return failed;
}

static int
test_ladspa (const char *path)
{
  void *mod = dlopen (path, RTLD_NOW);
  LADSPA_Descriptor_Function get;
  unsigned long index;
  unsigned i;
  int failed = 0;

  if (mod == NULL) {
    fprintf (stderr, "%s\n", dlerror ());
    return 1;
  }
  get = (LADSPA_Descriptor_Function) dlsym (mod, "ladspa_descriptor");
  for (index = 0; (ladspa_desc = get (index)) != NULL; index++) {
    for (i = 0; i < N_RATES; i++)
      failed |= test_ladspa_plugin (&rates[i]);
    failed |= test_ladspa_refused ();
  }
  return failed || index != 2;
}

/* The URIDs the options feature needs: index in this table. */
static const char *const uris[]
    = { "", LV2_BUF_SIZE__maxBlockLength, LV2_ATOM__Int };

static LV2_URID
map_uri (LV2_URID_Map_Handle handle, const char *uri)
{
  LV2_URID i;

  (void) handle;
  for (i = 1; i < sizeof uris / sizeof uris[0]; i++)
    if (strcmp (uri, uris[i]) == 0)
      return i;
  return 0;
}

/* One LV2 plugin at @r's rate, @channels audio inputs then as many
 * outputs, then the controls; @max_block: the host's bufsz:maxBlockLength,
 * 0 for no options. The max block is odd-sized (3000 frames) so that the
 * interleave buffer's allocation is recognisable. */
static int
test_lv2_plugin (const Rate *r, uint32_t channels, int32_t max_block)
{
  LV2_URID_Map map = { NULL, map_uri };
  LV2_Options_Option options[] = {
    { LV2_OPTIONS_INSTANCE, 0, 1, sizeof max_block, 2, &max_block },
    { LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, NULL },
  };
  LV2_Feature map_feature = { LV2_URID__map, &map };
  LV2_Feature options_feature = { LV2_OPTIONS__options, options };
  const LV2_Feature *none[] = { NULL };
  const LV2_Feature *with_options[] = { &map_feature, &options_feature, NULL };
  uint32_t p;
  LV2_Handle h;
  long n;

  watch_size = sizeof (float) * channels * (size_t) max_block;
  watch_seen = 0;
  counting = 1;
  h = lv2_desc->instantiate (lv2_desc, (double) r->rate, "",
      max_block > 0 ? with_options : none);
  counting = 0;
  if (h == NULL) {
    printf ("LV2 %s at %lu Hz: instantiate() failed\n", lv2_desc->URI, r->rate);
    return 1;
  }
  for (p = 0; p < channels; p++) {
    lv2_desc->connect_port (h, p, in[p]);
    lv2_desc->connect_port (h, channels + p, out[p]);
  }
  /* In port order (hosts/lv2/rnndenoise.ttl). */
  for (p = 0; p < N_CONTROLS; p++)
    lv2_desc->connect_port (h, 2 * channels + p, &controls[p]);
  controls[0] = 20.0f;  /* attenuation limit */
  controls[1] = 0.5f;   /* VAD threshold */
  controls[2] = 100.0f; /* VAD hold */
  controls[4] = -1.0f;  /* latency: run() must write it */
  controls[5] = 1.0f;   /* hum removal */
  set_quality ();
  lv2_desc->activate (h);
  n = count_run (lv2_run, h);
  printf ("LV2 %s at %lu Hz", lv2_desc->URI, r->rate);
  if (max_block > 0)
    printf (", maxBlockLength %d", (int) max_block);
  printf (": ");
  printf ("%ld allocations in run() over %d samples, latency port %.0f\n", n,
      TOTAL, controls[4]);
  lv2_desc->cleanup (h);
  if (max_block > 0 && !watch_seen)
    printf ("LV2 %s: instantiate() did not size its buffer from "
            "maxBlockLength\n",
        lv2_desc->URI);
  return n != 0 || controls[4] != r->latency || (max_block > 0 && !watch_seen);
}

/* The current LV2 plugin refuses the rates without a model. */
static int
test_lv2_refused (void)
{
  const LV2_Feature *none[] = { NULL };
  LV2_Handle h;
  unsigned i;
  int failed = 0;

  for (i = 0; i < N_REFUSED_RATES; i++) {
    h = lv2_desc->instantiate (lv2_desc, refused_rates[i], "", none);
    printf ("LV2 %s at %g Hz: %s\n", lv2_desc->URI, refused_rates[i],
        h == NULL ? "refused" : "NOT refused");
    if (h != NULL) {
      lv2_desc->cleanup (h);
      failed = 1;
    }
  }
  return failed;
}

static int
test_lv2 (const char *path)
{
  void *mod = dlopen (path, RTLD_NOW);
  LV2_Descriptor_Function get;
  uint32_t index, channels;
  unsigned i;
  int failed = 0;

  if (mod == NULL) {
    fprintf (stderr, "%s\n", dlerror ());
    return 1;
  }
  get = (LV2_Descriptor_Function) dlsym (mod, "lv2_descriptor");
  for (index = 0; (lv2_desc = get (index)) != NULL; index++) {
    channels = strstr (lv2_desc->URI, "stereo") != NULL ? 2 : 1;
    for (i = 0; i < N_RATES; i++) {
      failed |= test_lv2_plugin (&rates[i], channels, 0);
      if (channels > 1)
        failed |= test_lv2_plugin (&rates[i], channels, 3000);
    }
    failed |= test_lv2_refused ();
  }
  return failed || index != 2;
}

int
main (int argc, char **argv)
{
  int failed;

  if (argc != 3) {
    fprintf (stderr, "usage: %s LADSPA_MODULE LV2_MODULE\n", argv[0]);
    return 2;
  }
  fill ();
  failed = test_ladspa (argv[1]);
  failed |= test_lv2 (argv[2]);
  return failed ? 1 : 0;
}
