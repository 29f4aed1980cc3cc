/* report/report.h — the writers: summary.csv, breakdown.csv (and, as they
 * land, the workbook and the charts).  Every file is written atomically.
 * Return 0, or -1 with errno set and the failing path in err. */
#ifndef DF_REPORT_H
#define DF_REPORT_H

#include <stdio.h>

#include "batch/run.h"

int rpt_summary_csv(const Run *run, const char *path, char *err, size_t n);
int rpt_breakdown_csv(const Run *run, const char *path, char *err, size_t n);

/* One summary row (header when rr is NULL) to a stream, as in summary.csv. */
void rpt_summary_row(FILE *f, const RunRow *rr);

/* A number as the CSVs write it: %.6g, '.' decimal point, "" for NaN/Inf. */
void rpt_number(char *buf, size_t n, double v);

#endif
