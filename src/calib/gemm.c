/* calib/gemm.c — the device's GEMM efficiency from measured GEMM timings
 * (see calib.h). */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"

static int fp8_class(Precision p)
{
    return p == PREC_FP8 || p == PREC_FP4;
}

/* Mean |predicted / measured - 1| of class c's rows at efficiency e; the
 * predictions into pred. */
static double class_error(const Device *dev, const CalGemm *rows, int n, int c, double e, double *pred)
{
    Device dv = *dev;
    if (c)
        dv.matrix_eff_fp8 = e;
    else
        dv.matrix_eff = e;
    double s = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (fp8_class(rows[i].p) != c)
            continue;
        GemmCost g;
        gemm_cost(&dv, rows[i].p, 1, rows[i].m, rows[i].n, rows[i].k, NULL, &g);
        pred[i] = g.time_s;
        s += isfinite(g.time_s) && g.time_s > 0 ? fabs(g.time_s / rows[i].time_s - 1.0) : 1.0;
        k++;
    }
    return k ? s / k : 0.0;
}

int cal_gemm_fit(const Device *dev, const CalGemm *rows, int n, CalGemmFit *out, Diag *d)
{
    memset(out, 0, sizeof *out);
    out->pred = calloc((size_t)n + 1, sizeof *out->pred);
    if (!out->pred)
        return diag_set(d, NULL, 0, 0, "out of memory");
    for (int i = 0; i < n; i++)
        out->rows[fp8_class(rows[i].p)]++;
    for (int c = 0; c < 2; c++) {
        if (!out->rows[c])
            continue;
        if (out->rows[c] < CAL_GEMM_MIN)
            return diag_set(d, NULL, 0, 0,
                            "%d %s GEMM row%s cannot set the device's efficiency: at least %d are "
                            "needed",
                            out->rows[c], c ? "fp8/fp4" : "16/32-bit", out->rows[c] == 1 ? "" : "s",
                            CAL_GEMM_MIN);
        double best = 0, best_e = INFINITY;
        for (int k = 0; k <= 160; k++) {
            const double e = 0.20 + 0.005 * k;
            const double err = class_error(dev, rows, n, c, e, out->pred);
            if (err < best_e - 1e-12) {
                best_e = err;
                best = e;
            }
        }
        out->eff[c] = best;
        out->err[c] = class_error(dev, rows, n, c, best, out->pred);
    }
    return 0;
}
