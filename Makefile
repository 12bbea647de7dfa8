# gpusizer: plain GNU make. `make` builds ./gpusizer; `make check` runs the
# tests (`make check-core` first: the sizing core alone, with only -lm);
# `make report` writes out/ from sizing.json. V=1 shows commands.
CC ?= cc
BUILD ?= build
PKGS = libcurl libcjson xlsxwriter libcmark-gfm zlib
CFLAGS ?= -O2 -g
WERROR ?=
SAN ?=
GS_CFLAGS = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -D_DEFAULT_SOURCE $(WERROR) $(SAN)
PKG_CONFIG ?= pkg-config
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
LDLIBS += $(PKG_LIBS) -lcmark-gfm-extensions -lm -ldl -lpthread
Q = $(if $(V),,@)

# The source tree is layered (docs/HACKING.md): each folder of src/ is
# compiled seeing only its own headers and those of the layers below it
# (SEES_<folder>), so an #include of a higher layer's header is a compile
# error. src/main.c sees everything, as the commands do.
LAYERS := core base input hub verify report cmd
SEES_core := core
SEES_base := base core
SEES_input := input base core
SEES_hub := hub input base core
SEES_verify := verify input base core
SEES_report := report verify hub input base core
SEES_cmd := cmd report verify hub input base core
SEES_main := $(SEES_cmd)
# layer_inc,PATH: the -I flags of src/PATH.c's folder (PATH without src/ and .c)
layer_of = $(if $(findstring /,$(1)),$(firstword $(subst /, ,$(1))),main)
layer_inc = $(patsubst %,-Isrc/%,$(SEES_$(call layer_of,$(1))))
# Tests, benchmarks and fuzz targets sit above every layer.
ALL_INC := $(LAYERS:%=-Isrc/%)

SRC := $(wildcard src/*/*.c) src/main.c

# `make` alone builds ./gpusizer (the rule below would be the first).
.DEFAULT_GOAL := all

# Prints "FOLDER: -I..." per layer (tests/t_layers.py compiles against it).
.PHONY: layer-flags
layer-flags:
	@$(foreach l,$(LAYERS) main,echo "$(l): $(call layer_inc,$(if $(filter main,$(l)),main,$(l)/x))";)
OBJ := $(SRC:src/%.c=$(BUILD)/%.o)
LIBOBJ := $(filter-out $(BUILD)/main.o,$(OBJ))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.DELETE_ON_ERROR:
.PHONY: all deps check test units report sanitize valgrind fuzz bench accuracy clean install uninstall
all: gpusizer

deps:
	$(Q)sh tools/deps.sh

gpusizer: $(BUILD)/gpusizer
	$(Q)if [ "$(BUILD)" = build ]; then cp $(BUILD)/gpusizer gpusizer.new && mv -f gpusizer.new gpusizer; fi

$(BUILD)/gpusizer: $(OBJ)
	$(Q)$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(OBJ) $(LDLIBS)

# src/core is compiled with its own -I alone, no pkg-config flags: the same
# objects serve the program and check-core (the core built alone).
layer_pkg = $(if $(filter core,$(call layer_of,$(1))),,$(PKG_CFLAGS))
$(BUILD)/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(call layer_inc,$*) $(call layer_pkg,$*) $(GS_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# The test build, $(BUILD)/test/gpusizer: the modules that hold fault points
# (gs_fault, src/base/fault.h) compiled again with -DGS_TESTING, linked with
# the other objects as they are. The fault tests run it (GPUSIZER_TESTING);
# every other test, make install and ./gpusizer use $(BUILD)/gpusizer, in
# which each gs_fault is the constant 0.
FAULT_SRC := $(shell grep -l 'gs_fault' $(SRC) 2>/dev/null)
FAULT_OBJ := $(FAULT_SRC:src/%.c=$(BUILD)/test/%.o)
TEST_EXE := $(BUILD)/test/gpusizer

$(BUILD)/test/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -DGS_TESTING $(call layer_inc,$*) $(call layer_pkg,$*) $(GS_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(TEST_EXE): $(filter-out $(FAULT_SRC:src/%.c=$(BUILD)/%.o),$(OBJ)) $(FAULT_OBJ)
	$(Q)$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Unit tests: tests/unit/test_NAME.c -> $(BUILD)/tests/test_NAME, each
# linked with only the modules it tests and what they call. test_NAME_OBJ
# lists those modules by path under src/ (core/engine for src/core/engine.c);
# the libraries come from the modules: MOD_PKGS (pkg-config packages) and
# MOD_LIBS (other flags); a module not listed below needs only libc and -lm.
# A test with no list links all of src ($(LIBOBJ)) and every library
# ($(LDLIBS)), so a new test builds at once; give it a list when it settles
# (`make unit-deps` prints the list each test needs). An area's mk/*.mk may
# add lists.
cmd/verify_PKGS = libcjson
input/config_PKGS = libcjson
input/gpu_file_PKGS = libcjson
input/jsonget_PKGS = libcjson
input/safetensors_PKGS = libcjson
base/fileio_PKGS = zlib
hub/hub_PKGS = libcurl libcjson
hub/models_PKGS = libcjson
verify/harness_PKGS = libcjson
verify/measured_PKGS = libcjson
verify/nvml_LIBS = -ldl
report/html_PKGS = libcmark-gfm
report/html_LIBS = -lcmark-gfm-extensions
report/xlsx_PKGS = xlsxwriter zlib
report/spec_PKGS = libcjson

# The sizing core: every module of src/core (check-core builds them alone).
CORE := $(patsubst src/%.c,%,$(wildcard src/core/*.c))
test_arch_OBJ = core/arch core/err core/redact
test_engine_core_OBJ = $(CORE)
test_err_OBJ = core/err core/redact
test_redact_OBJ = core/redact
test_numfmt_OBJ = core/numfmt
test_settings_OBJ = $(CORE)
test_timing_OBJ = $(CORE)
test_verify_OBJ = verify/compare
# The rest (`make unit-deps` prints what each test's link needs).
test_buf_OBJ = base/buf base/util core/err core/redact
test_config_OBJ = base/fileio base/utf8 base/util core/arch core/err core/redact input/config input/jsoncheck input/jsonget
test_engine_OBJ = $(CORE) base/fileio base/utf8 base/util input/config input/jsoncheck input/jsonget
test_jsoncheck_OBJ = base/utf8 base/util core/err core/redact input/jsoncheck
test_jsonget_OBJ = core/err core/redact input/jsonget
test_measured_OBJ = base/fileio base/util core/err core/numfmt core/redact core/settings core/stacks verify/measured verify/nvml
test_plan_OBJ = $(CORE) base/util report/plan_view
test_models_OBJ = core/arch core/err core/redact base/fileio base/paths base/utf8 base/util hub/hub hub/modelid hub/models hub/resolve input/config input/jsoncheck input/jsonget input/safetensors
# The writer registry (report/writers.c), every writer it names and what
# they link: a test that links the registry (the spec checks its formats
# against it, the HTML pages take their downloads from it) lists $(WRITERS).
# A new format's module goes here.
WRITERS = base/buf base/fileio base/jw base/paths base/utf8 base/util report/csv report/html report/json \
  report/md report/mdesc report/plan_view report/report report/svg report/template report/timefields \
  report/writers report/xlsx verify/measured
test_report_driver_OBJ = $(CORE) $(WRITERS) base/sha256 input/jsoncheck report/outdir report/spec report/sweep
test_report_md_OBJ = $(CORE) $(WRITERS)
test_report_xlsx_OBJ = $(CORE) base/fileio base/jw base/utf8 base/util report/plan_view report/report report/timefields report/xlsx \
  verify/measured
test_rows_OBJ = $(CORE) $(WRITERS) report/sweep
# test_rows counts every call into the time model, the searches, the engine
# and the verdict rule, by who made it (the evaluation or a writer).
test_rows_LDFLAGS = -Wl,--wrap=gs_time_row,--wrap=gs_time_estimate,--wrap=gs_plan_try,--wrap=gs_plan_count \
  -Wl,--wrap=gs_plan_max,--wrap=gs_estimate_run,--wrap=gs_verdict_of
test_sha256_OBJ = base/sha256
test_safetensors_OBJ = core/err core/redact input/safetensors
test_template_OBJ = base/buf base/fileio base/utf8 base/util core/err core/redact report/mdesc report/template
test_utf8_OBJ = base/utf8

# A listed module without a src/MOD.c is skipped (lists may run ahead of,
# or behind, a module being split or merged; the linker names what is missing).
unit_objs = $(if $($(1)_OBJ),$(patsubst %,$(BUILD)/%.o,$(filter $(SRC:src/%.c=%),$($(1)_OBJ))),$(LIBOBJ))
unit_pkgs = $(sort $(foreach m,$($(1)_OBJ),$($(m)_PKGS)))
unit_cflags = $(if $($(1)_OBJ),$(if $(unit_pkgs),$(shell $(PKG_CONFIG) --cflags $(unit_pkgs) 2>/dev/null)),$(PKG_CFLAGS))
unit_libs = $(if $($(1)_OBJ),$(if $(unit_pkgs),$(shell $(PKG_CONFIG) --libs $(unit_pkgs) 2>/dev/null)) \
  $(sort $(foreach m,$($(1)_OBJ),$($(m)_LIBS))) -lm,$(LDLIBS))

# One rule per test (after mk/*.mk, below); pkg-config runs only when a
# test is linked.
define unit_rule
$(BUILD)/tests/$(1): tests/unit/$(1).c $(call unit_objs,$(1))
	@mkdir -p $$(dir $$@) $(BUILD)/tests/.deps
	$$(Q)$$(CC) $$(CPPFLAGS) $$(call unit_cflags,$(1)) $(ALL_INC) $$(GS_CFLAGS) $$(CFLAGS) $$(LDFLAGS) $$($(1)_LDFLAGS) \
	  -MMD -MP -MF $(BUILD)/tests/.deps/$(1).d -MT $$@ -o $$@ $$< $(call unit_objs,$(1)) $$(call unit_libs,$(1))
endef

units: $(UNIT_BIN)

# Prints, per unit test, the modules its link needs (the closure of its
# undefined symbols over the src objects) as a test_NAME_OBJ line, and
# "  (declared: ...)" after it where the list above differs.
UNIT_NAMES = $(UNIT_SRC:tests/unit/%.c=%)
.PHONY: unit-deps
unit-deps: $(LIBOBJ)
	@mkdir -p $(BUILD)/tests/.deps
	$(Q)d=$(BUILD)/tests/.deps; \
	for o in $(LIBOBJ); do m=$${o#$(BUILD)/}; nm $$o | awk -v m=$${m%.o} \
	  '$$2 ~ /^[TDBRCV]$$/ { print "D", $$3, m } $$1 == "U" { print "U", $$2, m }'; done >$$d/syms; \
	need() { \
	  $(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(ALL_INC) $(GS_CFLAGS) $(CFLAGS) -c -o $$d/$$1.o tests/unit/$$1.c || exit 1; \
	  got=$$(nm -u $$d/$$1.o | awk '{ print $$NF }' | awk 'NR == FNR { if ($$1 == "D") def[$$2] = $$3; \
	    else use[$$3] = use[$$3] " " $$2; next } { todo[++n] = $$1 } \
	    END { while (n) { s = todo[n--]; m = def[s]; if (m == "" || seen[m]++) continue; \
	      k = split(use[m], u, " "); for (i = 1; i <= k; i++) todo[++n] = u[i] } for (m in seen) print m }' \
	    $$d/syms - | sort | tr '\n' ' '); \
	  got=$${got% }; \
	  if [ "$$got" = "$$2" ]; then echo "$${1}_OBJ = $$got"; \
	  else echo "$${1}_OBJ = $$got  (declared: $${2:-none, so all of src})"; fi; \
	}; \
	$(foreach t,$(UNIT_NAMES),need $(t) "$(sort $($(t)_OBJ))";)

# The sizing core on its own: every src/core/*.c compiled with -Isrc/core
# and nothing else (no pkg-config flags, no other folder: the build's own
# $(BUILD)/core objects, compiled so for everything), and linked with
# nothing but -lm into the tests that need only the core (CORE_TESTS), which
# then run in $(CORE_DIR). A core file that includes a header of another folder fails to
# compile. Fails too when a core file includes cJSON, curl, xlsxwriter,
# cmark or zlib from the system, or uses FILE* or a stdio stream outside
# comments (err.c is exempt: gs_report_error() prints to stderr). Prints the
# FAIL and SKIP lines and the count (tests/run.sh -q --tier units); GS_WRAP
# prefixes each run.
CORE_TESTS := test_arch test_err test_engine_core test_redact test_numfmt test_timing \
  $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_settings*.c))
CORE_DIR = $(BUILD)/core-alone
# C source without its comments, each line prefixed "LINE:" (strings that
# hold comment markers would hide the rest of their line: none in the core).
CORE_NOCOMMENTS = awk '{ l = $$0; o = ""; while (l != "") { \
  if (c) { i = index(l, "*/"); if (!i) l = ""; else { l = substr(l, i + 2); c = 0 } continue } \
  i = index(l, "/*"); j = index(l, "//"); \
  if (j && (!i || j < i)) { o = o substr(l, 1, j - 1); l = "" } \
  else if (i) { o = o substr(l, 1, i - 1); l = substr(l, i + 2); c = 1 } \
  else { o = o l; l = "" } } print FNR ":" o }'
CORE_STREAMS := \<FILE\>|\<(fopen|fdopen|freopen|fclose|fprintf|vfprintf|fputs|fputc|putc|puts|fwrite|fread|fgets|fflush|stdin|stdout|stderr)\>|(^|[^a-z_])printf *\(

CORE_OBJ = $(CORE:%=$(BUILD)/%.o)

$(CORE_DIR)/test_%: tests/unit/test_%.c $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -Isrc/core $(GS_CFLAGS) $(CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $< $(CORE_OBJ) -lm

.PHONY: check-core
check-core:
	@mkdir -p $(CORE_DIR)
	$(Q)st=0; for m in $(CORE); do \
	  hs=$$($(CC) -Isrc/core -M -MT x src/$$m.c | tr ' \\' '\n\n' | grep '\.h$$') || { st=1; continue; }; \
	  for h in $$hs; do \
	    case "$$h" in \
	      src/core/*) ;; \
	      src/*) echo "check-core: src/$$m.c includes $$h, not a core header"; st=1 ;; \
	      *) if echo "$$h" | grep -qiE 'cjson|curl|xlsxwriter|cmark|zlib'; then \
	           echo "check-core: src/$$m.c includes $$h"; st=1; fi ;; \
	    esac; \
	  done; \
	done; \
	for f in $(filter-out src/core/err.c,$(CORE:%=src/%.c)) $(wildcard src/core/*.h); do \
	  if $(CORE_NOCOMMENTS) $$f | grep -E '$(CORE_STREAMS)'; then \
	    echo "check-core: $$f uses FILE* or a stdio stream"; st=1; fi; \
	done; exit $$st
	$(Q)$(MAKE) --no-print-directory $(BUILD_JOBS) $(CORE_TESTS:%=$(CORE_DIR)/%)
	$(Q)echo "check-core: $(CORE_TESTS) on src/core alone ($(words $(CORE)) modules)"; \
	GS_WRAP="$(GS_WRAP)" UNIT_DIR=$(CURDIR)/$(CORE_DIR) TESTS="$(CORE_TESTS)" sh tests/run.sh -q --tier units

# The test tiers (docs/HACKING.md, "Test tiers"). tests/run.sh runs the test
# files JOBS at once and prints "N passed, N failed, N skipped".
TEST_ENV = GPUSIZER=$(CURDIR)/$(BUILD)/gpusizer GPUSIZER_TESTING=$(CURDIR)/$(TEST_EXE) \
  UNIT_DIR=$(CURDIR)/$(BUILD)/tests
# What the test files run, built before they start (no test builds).
TEST_BUILD = $(BUILD)/gpusizer $(TEST_EXE) units $(BUILD)/speed/driver
# The test targets build with one job per CPU unless make was given -j.
NPROC := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
BUILD_JOBS = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(NPROC))

# The README's test command: installs what is missing, builds, runs every
# test but the application tests (TESTS="word ..." runs the files whose
# name holds a word).
check: deps
	$(Q)$(MAKE) --no-print-directory check-core
	$(Q)$(MAKE) --no-print-directory $(BUILD_JOBS) $(TEST_BUILD)
	$(Q)$(TEST_ENV) sh tests/run.sh
test: check

# The application tests (tests/run.sh --tier apps: the files marked
# "gpusizer-tier: apps"): the workbook recalculated by Gnumeric and
# LibreOffice, the HTML report in Chromium. Installs the applications
# (tools/deps.sh apps); a missing one is a failure, not a skip.
.PHONY: check-apps
check-apps: deps
	$(Q)sh tools/deps.sh apps
	$(Q)$(MAKE) --no-print-directory $(BUILD_JOBS) $(BUILD)/gpusizer
	$(Q)$(TEST_ENV) sh tests/run.sh --tier apps

# The README's main job: the committed default spec into out/, no network.
report: deps
	$(Q)$(MAKE) --no-print-directory gpusizer
	./gpusizer report --offline

# The sanitizer configuration: clang, ASan+UBSan, -O1, in $(SAN_BUILD). Its
# objects also carry libFuzzer's coverage instrumentation (fuzzer-no-link:
# counters and comparison hooks, inert without libFuzzer) so that the fuzz
# targets (mk/fuzz.mk) link these same objects: one clang build serves
# make sanitize and make fuzz.
SAN_BUILD := build/asan
SAN_MAKE = BUILD=$(SAN_BUILD) CC=clang CFLAGS="-O1 -g" \
  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -fsanitize=fuzzer-no-link"
sanitize: deps
	$(Q)sh tools/deps.sh clang fuzz
	$(Q)$(MAKE) --no-print-directory check $(SAN_MAKE)

# Memcheck (uninitialised reads, invalid accesses, leaks) on the gcc build:
# every unit binary, and every gpusizer run of the test files in
# VALGRIND_TESTS. ASan+UBSan (make sanitize) runs every test file; this set
# is chosen so that valgrind still reaches every command and every writer,
# and the Hub client's failure paths, at a fraction of the whole suite's
# cost under valgrind (each run costs about a second of start-up there, a
# sweep 50 times its plain time): measured with gcov, it runs 98.2% of the
# src/ lines that the whole suite runs through GS_WRAP. Left out: the
# accuracy sweep (hundreds of estimate runs, the paths of t_estimate_time),
# the malformed inputs (t_bad_inputs; the fuzz targets run the parsers
# under ASan), the output directory's faults (t_faults_out: full reports on
# a full tmpfs, 11 minutes under valgrind for 0.7% of the lines), the
# store, limit and write-failure faults, and the files that add no line.
# `make valgrind-coverage` prints what the set runs against what the whole
# suite would, per folder and by function (tools/valgrind-coverage.py);
# extend the set when it misses new code.
VALGRIND_TESTS = t_cli.py t_cli_docs.py t_estimate_time.py t_plan.py t_report.py t_report_progress.py \
  t_md_report.py t_xlsx.py t_settings_columns.py t_measured_report.py t_fetch.py t_fetch_token.py \
  t_token_leak.py t_verify.py t_harness_run.py t_install.py t_speed_accuracy.py t_faults_hub.py
VALGRIND = valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
valgrind: deps
	$(Q)sh tools/deps.sh valgrind
	$(Q)$(MAKE) --no-print-directory $(BUILD_JOBS) $(TEST_BUILD)
	$(Q)$(TEST_ENV) GS_WRAP="$(VALGRIND)" TESTS="test_ $(VALGRIND_TESTS)" sh tests/run.sh

.PHONY: print-valgrind-tests valgrind-coverage
print-valgrind-tests:
	@echo test_ $(VALGRIND_TESTS)
valgrind-coverage:
	$(Q)python3 tools/valgrind-coverage.py

accuracy: gpusizer
	python3 tests/accuracy.py

bench: gpusizer
	$(Q)sh bench/run.sh

clean:
	rm -rf build gpusizer

# Install: the binary, the man page, and under share/gpusizer the GPU
# classes, the templates, the verify harness, the reference model configs
# and the default spec (the committed sizing.json: `report` without --spec
# and without a ./sizing.json reads it, its reports going to ./out).
# The installed binary finds share/gpusizer from its own location
# (BINDIR/../share/gpusizer; elsewhere set GPUSIZER_DATA). DESTDIR stages.
#   make install PREFIX=$HOME/.local      make uninstall PREFIX=$HOME/.local
# GPUSIZER_BIN names the binary to install (default $(BUILD)/gpusizer, built
# when missing or stale). Uninstall removes what install-manifest lists.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATAROOTDIR ?= $(PREFIX)/share
MANDIR ?= $(DATAROOTDIR)/man
GS_DATADIR ?= $(DATAROOTDIR)/gpusizer
GPUSIZER_BIN ?= $(BUILD)/gpusizer
INSTALL ?= install
INSTALL_DATA_FILES = $(sort sizing.json $(wildcard gpus/*.json) \
  $(shell find templates -type f ! -name '.*' 2>/dev/null) \
  $(wildcard models/*/config.json models/*/meta.json))

install: $(GPUSIZER_BIN)
	$(Q)set -e; d="$(DESTDIR)"; s="$(GS_DATADIR)"; m="$$d$$s/install-manifest"; \
	$(INSTALL) -d "$$d$(BINDIR)" "$$d$(MANDIR)/man1" "$$d$$s"; \
	: >"$$m.new"; \
	$(INSTALL) -m 755 "$(GPUSIZER_BIN)" "$$d$(BINDIR)/gpusizer"; echo "$(BINDIR)/gpusizer" >>"$$m.new"; \
	$(INSTALL) -m 644 gpusizer.1 "$$d$(MANDIR)/man1/gpusizer.1"; echo "$(MANDIR)/man1/gpusizer.1" >>"$$m.new"; \
	$(INSTALL) -m 755 tools/harness.py "$$d$$s/harness.py"; echo "$$s/harness.py" >>"$$m.new"; \
	for f in $(INSTALL_DATA_FILES); do \
	  $(INSTALL) -d "$$d$$s/$$(dirname "$$f")"; $(INSTALL) -m 644 "$$f" "$$d$$s/$$f"; echo "$$s/$$f" >>"$$m.new"; \
	done; \
	echo "$$s/install-manifest" >>"$$m.new"; mv -f "$$m.new" "$$m"; \
	echo "installed gpusizer in $$d$(PREFIX) ($$(wc -l <"$$m") files, listed in $$m)"
	$(Q)if [ "$(BINDIR)/../share/gpusizer" != "$(PREFIX)/bin/../share/gpusizer" ] || \
	  [ "$(GS_DATADIR)" != "$(PREFIX)/share/gpusizer" ]; then \
	  echo "note: gpusizer looks for its data in BINDIR/../share/gpusizer; set GPUSIZER_DATA=$(GS_DATADIR)"; fi

# Removes the files install-manifest lists (only under BINDIR, MANDIR and
# GS_DATADIR), else the files install would write; then the directories
# under GS_DATADIR left empty.
uninstall:
	$(Q)d="$(DESTDIR)"; s="$(GS_DATADIR)"; m="$$d$$s/install-manifest"; n=0; \
	if [ -f "$$m" ]; then \
	  while IFS= read -r f; do \
	    case "$$f" in *..*) continue ;; \
	      "$(BINDIR)/gpusizer"|"$(MANDIR)/man1/gpusizer.1"|"$$s"/*) ;; *) continue ;; esac; \
	    [ -e "$$d$$f" ] || [ -L "$$d$$f" ] || continue; rm -f "$$d$$f" && n=$$((n + 1)); \
	  done <"$$m"; \
	else \
	  for f in "$(BINDIR)/gpusizer" "$(MANDIR)/man1/gpusizer.1" "$$s/harness.py" \
	           $(addprefix "$$s"/,$(INSTALL_DATA_FILES)); do \
	    [ -e "$$d$$f" ] || continue; rm -f "$$d$$f" && n=$$((n + 1)); \
	  done; \
	fi; \
	if [ -d "$$d$$s" ]; then find "$$d$$s" -depth -type d -empty -delete; fi; \
	echo "removed $$n files from $$d$(PREFIX)"

-include $(OBJ:.o=.d) $(FAULT_OBJ:.o=.d)
# Targets contributed per area (fuzz, bench, ...).
-include $(wildcard mk/*.mk)
$(foreach t,$(UNIT_NAMES),$(eval $(call unit_rule,$(t))))
-include $(wildcard $(BUILD)/tests/.deps/*.d $(CORE_DIR)/*.d)
