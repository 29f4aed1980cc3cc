/* tests/testdb.h — the shipped templates for tests that evaluate whole
 * scenarios: one TemplateDB per test program (opened by the group setup,
 * closed by its teardown) and a builder from "key=value" strings that
 * fails the test with the loader's message. */
#ifndef DF_TESTDB_H
#define DF_TESTDB_H

#include "io/scenario.h"
#include "io/template.h"
#include "testutil.h"

static TemplateDB db;

static int db_setup(void **state)
{
    (void)state;
    Diag d;
    return tdb_init(&db, "../templates", &d);
}

static int db_teardown(void **state)
{
    (void)state;
    tdb_free(&db);
    return 0;
}

static void build_scenario(Scenario *sc, const char *const *kv, int n)
{
    ScenarioSource src;
    Diag d;
    diag_clear(&d);
    int rc = scenario_build_kv(&db, "test", kv, NULL, n, sc, &src, &d);
    if (rc)
        print_error("%s\n", d.msg);
    assert_int_equal(rc, 0);
    scenario_source_free(&src);
}

#endif
