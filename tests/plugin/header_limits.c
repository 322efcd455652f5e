/*
 * header_limits.c: the installed plugin header (include/attnbench/plugin.h)
 * states the contract's limits as numbers; this file fails to compile when
 * any of them differs from the value attnbench's own sources use (the
 * independent side: src/core/variant.h, src/run/plugin.h,
 * src/run/plugin_worker.h, src/core/shape.c's bound), and at run time
 * checks that the header no longer sends its reader to
 * src/core/variant.h, which is not installed.
 */
#include "attnbench/plugin.h"
#include "plugin.h"
#include "plugin_worker.h"
#include "variant.h"

#include <stdio.h>
#include <string.h>

_Static_assert(ATTNBENCH_PLUGIN_MAX_VARIANTS == AB_PLUGIN_MAX_VARIANTS, "max variants");
_Static_assert(ATTNBENCH_PLUGIN_NAME_MAX == AB_PLUGIN_NAME_MAX, "name bytes");
_Static_assert(ATTNBENCH_PLUGIN_GUARD_FLOATS == AB_PW_GUARD_FLOATS, "canary floats");
_Static_assert(ATTNBENCH_SETUP_UNSUPPORTED == AB_SETUP_UNSUPPORTED, "setup unsupported");
/* head_dims[8], the last forced to 0 by src/run/plugin.c */
_Static_assert(ATTNBENCH_PLUGIN_MAX_HEAD_DIMS ==
                   sizeof(((attnbench_plugin_variant *)0)->head_dims) / sizeof(int) - 1,
               "head dims");
_Static_assert(ATTNBENCH_PLUGIN_MAX_AXIS == 16777216, "axis bound of src/core/shape.c");

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: header_limits PATH/include/attnbench/plugin.h\n");
        return 2;
    }
    /* the axis bound as ab_shape_check applies it: 2^24 passes, 2^24 + 1 fails */
    char err[256];
    ab_shape ok = {1, 1, ATTNBENCH_PLUGIN_MAX_AXIS, 1, 0, AB_FP32, 0, 0, AB_FWD};
    ab_shape over = ok;
    over.S = ATTNBENCH_PLUGIN_MAX_AXIS + 1;
    if (ab_shape_check(&ok, NULL, err, sizeof err) || !ab_shape_check(&over, NULL, err, sizeof err)) {
        fprintf(stderr, "FAIL: ATTNBENCH_PLUGIN_MAX_AXIS is not ab_shape_check's bound\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char line[512];
    int bad = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "src/core/variant.h")) {
            fprintf(stderr, "FAIL: the installed header points at src/core/variant.h: %s", line);
            bad = 1;
        }
    fclose(f);
    if (!bad)
        printf("ok: the header's limits are attnbench's; it is self-contained\n");
    return bad;
}
