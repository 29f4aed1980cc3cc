/* scale/goodput.c — the time lost to failures (DESIGN.md §6.8).
 *
 * A job on n devices is interrupted at the rate n x the system's failures
 * per device-hour (exponential: M = 1 / (n rate) is the job's mean time to
 * interruption).  It writes a checkpoint of its weights and optimizer state
 * every tau seconds of work (taking delta, every node writing its share),
 * and after an interruption it restarts (the system's restart time) and
 * reads the last checkpoint back; the work since that checkpoint is lost.
 * tau is Daly's higher-order optimum (J. T. Daly, "A higher order estimate
 * of the optimum checkpoint interval for restart dumps", FGCS 22, 2006,
 * eq. 37; Young 1974's sqrt(2 delta M) to first order), and the expected
 * wall-clock time of T seconds of work is Daly's eq. 20:
 *     T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T / tau
 * with R the restart and read-back time.  Goodput = T / T_w. */
#include "scale.h"

#include <math.h>

double scale_daly_interval(double delta_s, double mtti_s)
{
    if (!(delta_s > 0) || !(mtti_s > 0))
        return NAN;
    if (delta_s >= 2 * mtti_s)
        return mtti_s;
    const double x = delta_s / (2 * mtti_s);
    return sqrt(2 * delta_s * mtti_s) * (1 + sqrt(x) / 3 + x / 9) - delta_s;
}

double scale_wall_time(double work_s, double tau_s, double delta_s, double restart_s, double mtti_s)
{
    if (!(work_s >= 0) || !(tau_s > 0) || !(delta_s >= 0) || !(restart_s >= 0) || !(mtti_s > 0))
        return NAN;
    return mtti_s * exp(restart_s / mtti_s) * expm1((tau_s + delta_s) / mtti_s) * work_s / tau_s;
}

double scale_checkpoint_bytes(const Scenario *sc, double params)
{
    /* the training state: the weights as trained (4 bytes in fp32, else 2:
     * fp8 training keeps bf16 weights), the model's optimizer's state and,
     * in mixed precision, the master weights (4 bytes; fp32 training has no
     * separate master copy), both 16-bit where the stack keeps them so */
    const double w = precision_value_bytes(sc->precision);
    return params * (w + optimizer_held_bytes(optimizer_spec(sc->model.optimizer),
                                              sc->system.framework.opt_state, w, w == 4.0 ? 0.0 : 4.0));
}

int scale_goodput(const Scenario *sc, double work_s, double params, Goodput *g)
{
    const System *s = &sc->system;
    g->mtti_s = g->write_s = g->interval_s = g->goodput = g->wall_s = NAN;
    if (!(s->failures_per_device_hour > 0) || !(s->checkpoint_write_bw > 0) || !(work_s > 0) ||
        !(params > 0) || sc->devices < 1)
        return -1;
    const int per_node = s->devices_per_node > 0 ? s->devices_per_node : 1;
    const double nodes = ceil((double)sc->devices / per_node);
    const double bytes = scale_checkpoint_bytes(sc, params);
    const double read_bw = s->checkpoint_read_bw > 0 ? s->checkpoint_read_bw : s->checkpoint_write_bw;
    g->mtti_s = 3600.0 / (s->failures_per_device_hour * sc->devices);
    g->write_s = bytes / (nodes * s->checkpoint_write_bw);
    g->interval_s = scale_daly_interval(g->write_s, g->mtti_s);
    const double restart = s->restart_s + bytes / (nodes * read_bw);
    g->wall_s = scale_wall_time(work_s, g->interval_s, g->write_s, restart, g->mtti_s);
    if (!isfinite(g->wall_s)) { /* interruptions faster than the job can checkpoint: it never ends */
        g->goodput = 0;
        g->wall_s = INFINITY;
        return 0;
    }
    g->goodput = work_s / g->wall_s;
    return 0;
}
