/*
 * out_writer.c: writes the output file an external adapter would write for
 * attnbench's own check (src/run/ext_output.h, `check output=PATH`), for
 * tests/external/output_test.sh. O is the float64 reference
 * (kernels/reference.c, independent of the check's plain/shadow arithmetic)
 * on the inputs of the experiment's seed (kernels/data.h), stored as
 * float32 [B,H,S,D], then optionally damaged: every element times FACTOR,
 * and query row ROW (>= 0) of slice 0 set to 0.5.
 * Usage: out_writer B H S D CAUSAL DTYPE SEED FACTOR ROW PATH
 */
#include "data.h"
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 11) {
        fprintf(stderr, "usage: %s B H S D CAUSAL DTYPE SEED FACTOR ROW PATH\n", argv[0]);
        return 2;
    }
    ab_shape s = {.B = atoi(argv[1]), .H = atoi(argv[2]), .S = atoi(argv[3]), .D = atoi(argv[4]),
                  .causal = atoi(argv[5])};
    if (ab_dtype_parse(argv[6], &s.dtype)) {
        fprintf(stderr, "out_writer: unknown dtype %s\n", argv[6]);
        return 2;
    }
    const unsigned long seed = strtoul(argv[7], NULL, 10);
    const double factor = atof(argv[8]);
    const int row = atoi(argv[9]);
    const size_t numel = ab_shape_numel(&s);
    float *q = malloc(numel * sizeof *q), *k = malloc(numel * sizeof *k);
    float *v = malloc(numel * sizeof *v), *o = malloc(numel * sizeof *o);
    double *out = malloc((size_t)s.D * sizeof *out), *scratch = malloc((size_t)s.S * sizeof *scratch);
    if (!q || !k || !v || !o || !out || !scratch || ab_inputs_fill(&s, seed, q, k, v))
        return 1;
    for (size_t bh = 0; bh < (size_t)s.B * s.H; bh++)
        for (int i = 0; i < s.S; i++) {
            ab_reference_row(&s, q, k, v, bh, i, out, scratch);
            for (int d = 0; d < s.D; d++)
                o[(bh * s.S + i) * s.D + d] = (float)(out[d] * factor);
        }
    if (row >= 0 && row < s.S)
        for (int d = 0; d < s.D; d++)
            o[(size_t)row * s.D + d] = 0.5f;
    FILE *f = fopen(argv[10], "wb");
    if (!f || fwrite(o, sizeof *o, numel, f) != numel || fclose(f)) {
        perror(argv[10]);
        return 1;
    }
    return 0;
}
