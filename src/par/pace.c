/* par/pace.c — the pace of a synchronous step on many devices.
 *
 * Devices of one model do not run at one speed: manufacturing spread and
 * each part's power management make some slower than others (Sinha et
 * al., "Not All GPUs Are Created Equal", SC 2022: 8 % average performance
 * variation between GPUs of one SKU in a cluster, outliers up to 1.5x
 * slower than the median).  A step that synchronises every device (the
 * gradient exchange, the tensor and pipeline groups' collectives) ends
 * when the slowest has done its work, so its compute takes 1 + s E[max]
 * of the median device's, with s the speed spread (coefficient of
 * variation) and E[max] the expected largest of n standard normal draws.
 * E[max] by Blom's plotting position, Phi^-1((n - 0.375) / (n + 0.25))
 * (Blom, "Statistical Estimates and Transformed Beta-Variables", 1958),
 * within 0.03 of the exact value from n = 2 to 100,000; Phi^-1 by
 * Acklam's rational approximation (relative error below 1.2e-9).  Pure. */
#include "parts.h"

#include <math.h>

/* Acklam's algorithm: the standard normal quantile of p in (0, 1). */
static double normal_quantile(double p)
{
    static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                3.754408661907416e+00};
    const double lo = 0.02425;
    if (p < lo) {
        const double q = sqrt(-2.0 * log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    if (p > 1.0 - lo) {
        const double q = sqrt(-2.0 * log(1.0 - p));
        return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    const double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

double pace_normal_max(double n)
{
    if (!(n > 1))
        return 0.0;
    return normal_quantile((n - 0.375) / (n + 0.25));
}

double pace_factor(double spread, double n)
{
    return spread > 0 ? 1.0 + spread * pace_normal_max(n) : 1.0;
}
