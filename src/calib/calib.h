/* calib/calib.h — a training stack fitted to measured step times (deepflow
 * calibrate, issue 25): the few physical parameters of the stack that the
 * runs pin down, each by a search over its physical range, every run's
 * leave-one-out prediction, the fitted values' jackknife uncertainty, the
 * runs the fit cannot explain, and the 90 % range those out-of-sample
 * residuals give.
 *
 * The fit: coordinate descent over the parameters' grids (one parameter at
 * a time over its whole grid, the others held, until a round changes
 * nothing), minimising the mean over runs of |predicted / measured - 1| (the
 * figure make validate reports).  A parameter no run's prediction depends
 * on (tp_overlap without tp > 1) is not fitted: it keeps the base stack's
 * value, and the result says why.  Leave-one-out: the fit redone without
 * each run, from the whole fit, then that run predicted.  Evaluations are
 * memoised by parameter vector, so the leave-one-out fits cost little more
 * than the fit.  Pure: the scenarios are the caller's and never changed. */
#ifndef DF_CALIB_H
#define DF_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "core/types.h"

typedef enum {
    CAL_GEMM,       /* gemm_efficiency */
    CAL_OVERHEAD,   /* op_overhead */
    CAL_TP_OVERLAP, /* tp_overlap */
    CAL_DP_OVERLAP, /* dp_overlap */
    CAL_COMM_INTRA, /* comm_efficiency.intra */
    CAL_COMM_INTER, /* comm_efficiency.inter */
    CAL_LAT_INTRA,  /* comm_latency.intra */
    CAL_LAT_INTER,  /* comm_latency.inter */
    CAL_NPARAM
} CalParam;

typedef struct {
    const char *key;     /* the frameworks template's key */
    size_t field;        /* offsetof its double in Framework */
    int zero_is_one;     /* a 0 there means 1 (gemm_efficiency, comm_efficiency: "as given") */
    double shown;        /* the key's unit as written: value x shown */
    const char *unit;    /* and its name ("" or " us") */
    double lo, hi, step; /* the grid searched (a fit at an end says so) */
    const char *unused;  /* why the runs may not pin it (what a run would need) */
} CalParamDef;

extern const CalParamDef cal_param[CAL_NPARAM];

/* The parameter as a scenario holds it, and set. */
double cal_get(const Scenario *sc, CalParam p);
void cal_set(Scenario *sc, CalParam p, double v);

/* The parameter's value in the units its template key is written in
 * (op_overhead and the latencies in microseconds, the others as they are:
 * CalParamDef.shown and .unit). */
double cal_shown(CalParam p, double v);

typedef struct {
    const Scenario *sc;     /* n scenarios, every one on the same stack */
    const double *measured; /* each run's measured step time, s (> 0) */
    int n;
    unsigned ask; /* bit p: fit parameter p */
} CalInput;

/* Fewest runs for k fitted parameters: two a parameter and one to leave out. */
#define CAL_MIN_RUNS(k) (2 * (k) + 1)

typedef struct {
    double base[CAL_NPARAM];  /* the stack's own values (the first run's) */
    double value[CAL_NPARAM]; /* fitted, or the base where not fitted */
    double se[CAL_NPARAM];    /* jackknife standard error of a fitted value (0 otherwise) */
    int fitted[CAL_NPARAM];   /* 1: fitted; 0: asked but not pinned (note says why), or not asked */
    int at_edge[CAL_NPARAM];  /* 1: the fit sits at an end of the grid */
    char note[CAL_NPARAM][200];
    int nfit;          /* parameters fitted */
    double *pred_base; /* [n] each run's predicted step time on the base stack (0: none) */
    double *pred_in;   /* [n] on the fitted stack */
    double *pred_loo;  /* [n] on the stack fitted without the run */
    int *outlier;      /* [n] 1: its out-of-sample residual is beyond 3 robust standard deviations */
    double err_base;   /* mean |predicted / measured - 1|: base stack */
    double err_in;     /* fitted, in sample */
    double err_loo;    /* each run left out of the fit */
    long evaluations;  /* scenarios evaluated, all fits together */
} CalResult;

/* Fit.  Returns 0, or -1 with d->msg saying why no fit is given: too few
 * runs for the parameters the runs pin (how many are needed), a fitted
 * value beyond its physical bound (the parameter and the runs that pull it
 * there), runs the model gives no time for, runs that disagree on a fitted
 * key.  The result is the caller's to free (cal_result_free), also after
 * a failure. */
int cal_fit(const CalInput *in, CalResult *out, Diag *d);

void cal_result_free(CalResult *r);

/* Runs of one setup repeat to about 1 % (the floor of a residual's
 * spread: outliers are judged against at least this, and no range is
 * narrower than 90 % of it, +-1.645 %). */
#define CAL_NOISE 0.01

/* The 90 % range of n out-of-sample ratios measured / predicted: their 5th
 * and 95th percentiles (linear between order statistics), widened to hold
 * 1 +- 1.645 CAL_NOISE, with the runs, their mean |predicted / measured -
 * 1| and the share inside.  n < 1 leaves iv zero. */
void cal_interval(const double *ratio, int n, Interval *iv);

/* ---- GEMM timings (calib/gemm.c) ---------------------------------------
 * A table of measured GEMMs (m, n, k, precision, time) sets the device's
 * achievable fraction of its matrix peak (efficiency.matrix, and
 * efficiency.matrix_fp8 for fp8 rows): the value on a grid of 0.20 to 1.00
 * by 0.005 at which the model's time of those shapes (perf/gemm.c: tiles,
 * waves and the memory levels) is nearest, as mean |predicted / measured -
 * 1|.  Each precision class needs CAL_GEMM_MIN rows. */
#define CAL_GEMM_MIN 3

typedef struct {
    int64_t m, n, k;
    Precision p;
    double time_s;
} CalGemm;

typedef struct {
    double eff[2]; /* fitted: [0] 16/32-bit, [1] fp8 and fp4 (0: no rows) */
    int rows[2];   /* rows of each */
    double err[2]; /* mean |predicted / measured - 1| at the fit */
    double *pred;  /* [n] each row's predicted time at the fit, s */
} CalGemmFit;

/* 0, or -1 with d->msg (too few rows of a class, a row the model gives no
 * time for).  pred is the caller's to free, also after a failure. */
int cal_gemm_fit(const Device *dev, const CalGemm *rows, int n, CalGemmFit *out, Diag *d);

#endif
