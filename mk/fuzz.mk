# libFuzzer targets for every parser of outside input (tests/fuzz/fuzz_*.c).
#   make fuzz                 build, then run each target FUZZ_SECONDS (60) s;
#                             prints executions and crashes per target and
#                             exits non-zero on any crash (inputs kept under
#                             build/fuzz/artifacts/<target>/)
#   make fuzz FUZZ_TARGETS="config spec"   only those
#   make fuzz-regress         run every target once over its committed corpus
#                             (tests/fuzz/corpus/<target>/; seconds)
#   FUZZ_JOBS=n               targets fuzzed at once (default: the CPUs; each
#                             target is one process, so each still gets its
#                             FUZZ_SECONDS)
# Needs clang and libclang-rt (tools/deps.sh clang fuzz installs them).
# The targets link the src objects of the sanitize build ($(SAN_BUILD), the
# Makefile's SAN_MAKE: ASan+UBSan and fuzzer-no-link), built here when
# missing; binaries, logs and corpora go to build/fuzz/.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
FUZZ_DIR := build/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -Wall -Wextra -D_DEFAULT_SOURCE -O1 -g $(FUZZ_SAN)
FUZZ_ALL := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_OBJ := $(filter-out $(SAN_BUILD)/main.o,$(SRC:src/%.c=$(SAN_BUILD)/%.o))
FUZZ_BIN := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-regress fuzz-deps
fuzz-deps:
	$(Q)sh tools/deps.sh clang fuzz

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_file.h $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) $(ALL_INC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
	  $(FUZZ_OBJ) $(LDLIBS)

# The objects in the sanitize configuration (BUILD=$(SAN_BUILD)), then the targets.
fuzz-build: fuzz-deps
	$(Q)$(MAKE) --no-print-directory $(SAN_MAKE) $(FUZZ_BIN)

fuzz: fuzz-build
	$(Q)FUZZ_DIR=$(FUZZ_DIR) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) \
	  sh tests/fuzz/run.sh fuzz $(FUZZ_TARGETS)

fuzz-regress: fuzz-build
	$(Q)FUZZ_DIR=$(FUZZ_DIR) FUZZ_JOBS=$(FUZZ_JOBS) sh tests/fuzz/run.sh regress $(FUZZ_TARGETS)

.SECONDARY: $(FUZZ_OBJ)
