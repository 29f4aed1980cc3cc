# deepflow — build, test, report, bench, install.
# `make report` and `make test` are the whole set-up on a fresh Debian 12
# machine: missing Debian packages are installed by scripts/install-deps.sh.

PREFIX   ?= /usr/local
CC       ?= cc
CFLAGS   ?= -O2 -g
override CFLAGS += -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Isrc -pthread
LDLIBS   := -lxlsxwriter -lz -lcsv -lyaml -lm -pthread
BUILD    := build

# make MPI=1: deepflow for mpirun/srun (Debian's OpenMPI), in its own build folder
ifeq ($(MPI),1)
CC       := mpicc
BUILD    := build-mpi
override CFLAGS += -DDF_MPI
endif

DEPS_STAMP := $(BUILD)/.deps-ok
LIB_SRC  := $(sort $(filter-out src/main.c,$(wildcard src/*/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(sort $(wildcard scripts/bench_*.c))
BENCH_BIN := $(BENCH_SRC:scripts/%.c=$(BUILD)/%)
BIN      := $(BUILD)/deepflow
VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

.PHONY: all test report bench install clean lint format validate deps unit cli asan fuzz look

all: $(BIN)

# Install missing Debian packages once (idempotent, silent when all is there).
$(DEPS_STAMP): scripts/install-deps.sh
	@sh scripts/install-deps.sh
	@[ "$(MPI)" != 1 ] || sh scripts/install-deps.sh --mpi
	@mkdir -p $(BUILD) && touch $@

deps: $(DEPS_STAMP)

$(BUILD)/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DDF_VERSION=\"$(VERSION)\" -MMD -MP -c $< -o $@

$(BUILD)/libdeepflow.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/src/main.o $(BUILD)/libdeepflow.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
	@[ "$(MPI)" = 1 ] || ln -sf $(BUILD)/deepflow deepflow 2>/dev/null || true

$(BUILD)/tests/%: tests/%.c tests/testutil.h tests/testdb.h $(BUILD)/libdeepflow.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(BUILD)/libdeepflow.a $(LDLIBS) -lcmocka

$(BUILD)/bench_%: scripts/bench_%.c $(BUILD)/libdeepflow.a
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libdeepflow.a $(LDLIBS)

unit: $(TEST_BIN)
	@fail=0; for t in $(TEST_BIN); do \
	  (cd tests && ../$$t) || fail=1; \
	done; test $$fail -eq 0

cli: $(BIN)
	@sh tests/cli/run.sh $(BIN)
	@sh tests/cli/report.sh $(BIN)

test: $(TEST_BIN) $(BIN)
	@sh tests/run_all.sh $(BIN) $(TEST_BIN)

report: $(BIN)
	./$(BIN) run inputs/default.csv -o reports/default

validate: $(BIN)
	@sh scripts/validate.sh $(BIN)

# Render the workbooks under reports/ to PDF and PNG pages (LibreOffice) for a person to look at.
look:
	@sh scripts/look.sh

bench: $(BENCH_BIN) $(BIN)
	@rm -f $(BUILD)/bench.log
	@for b in $(BENCH_BIN); do $$b | tee -a $(BUILD)/bench.log; done
	@sh scripts/bench_e2e.sh $(BIN) "$$(sed -n 's/.*warm memo: *\([0-9]*\) evaluations.*/\1/p' $(BUILD)/bench.log | tail -n 1)"
	@rm -f $(BUILD)/bench.log
	@sh scripts/bench_mpi.sh
	@sh scripts/bench_stream.sh $(BIN)

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/deepflow
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/deepflow
	cp -R templates $(DESTDIR)$(PREFIX)/share/deepflow/

lint: $(DEPS_STAMP)
	clang-format --dry-run --Werror src/*/*.c src/*/*.h src/main.c tests/*.c tests/*.h tests/fuzz/*.c
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability --inline-suppr --std=c11 -Isrc src
	clang-tidy --quiet $(LIB_SRC) src/main.c -- $(filter-out -Werror,$(CFLAGS))

format:
	clang-format -i src/*/*.c src/*/*.h src/main.c tests/*.c tests/*.h tests/fuzz/*.c

asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" LDLIBS="$(LDLIBS) -fsanitize=address,undefined" test

# libFuzzer harnesses (clang): tables and sweeps, YAML, units, echoed text; FUZZ_SECONDS each.
FUZZ_SECONDS ?= 30
# a fixed seed: a run explores the same inputs each time (FUZZ_SEED=0 picks one at random)
FUZZ_SEED ?= 1
FUZZ_SRC := $(sort $(filter-out src/main.c,$(wildcard src/*/*.c)))
fuzz: $(DEPS_STAMP)
	@mkdir -p build-fuzz
	@for h in table yaml units text; do \
	  clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	    -Isrc -o build-fuzz/fuzz_$$h tests/fuzz/fuzz_$$h.c $(FUZZ_SRC) -lxlsxwriter -lz -lcsv -lyaml -lm -pthread \
	    || exit 1; \
	  echo "fuzz_$$h: $(FUZZ_SECONDS) s"; \
	  build-fuzz/fuzz_$$h -seed=$(FUZZ_SEED) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=0 \
	    -artifact_prefix=build-fuzz/fuzz_$$h- >build-fuzz/fuzz_$$h.log 2>&1; st=$$?; \
	  tail -n 2 build-fuzz/fuzz_$$h.log; \
	  if [ $$st -ne 0 ]; then \
	    echo "fuzz_$$h: FAILED (exit $$st): build-fuzz/fuzz_$$h.log, reproducer build-fuzz/fuzz_$$h-*"; exit 1; fi; \
	done

clean:
	rm -rf $(BUILD) build-asan build-mpi build-fuzz deepflow

-include $(LIB_OBJ:.o=.d) $(BUILD)/src/main.d
