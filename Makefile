# gpusizer: plain GNU make. `make` builds ./gpusizer; `make check` runs the
# tests; `make report` writes out/ from sizing.json. V=1 shows commands.
CC ?= cc
BUILD ?= build
PKGS = libcurl libcjson xlsxwriter libcmark-gfm
CFLAGS ?= -O2 -g
WERROR ?=
SAN ?=
GS_CFLAGS = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -D_DEFAULT_SOURCE $(WERROR) $(SAN)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS += $(PKG_LIBS) -lcmark-gfm-extensions -lm -ldl -lpthread
Q = $(if $(V),,@)

SRC := $(wildcard src/*.c)
OBJ := $(SRC:src/%.c=$(BUILD)/%.o)
LIBOBJ := $(filter-out $(BUILD)/main.o,$(OBJ))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps check test report sanitize valgrind fuzz bench accuracy clean
all: gpusizer

deps:
	$(Q)sh tools/deps.sh

gpusizer: $(BUILD)/gpusizer
	$(Q)if [ "$(BUILD)" = build ]; then cp $(BUILD)/gpusizer gpusizer.new && mv -f gpusizer.new gpusizer; fi

$(BUILD)/gpusizer: $(OBJ)
	$(Q)$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(OBJ) $(LDLIBS)

$(BUILD)/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(GS_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJ)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) -Isrc $(GS_CFLAGS) $(CFLAGS) -o $@ $< $(LIBOBJ) $(LDLIBS)

units: $(UNIT_BIN)

# The README's test command: installs what is missing, builds, runs every test.
check: deps
	$(Q)$(MAKE) --no-print-directory $(BUILD)/gpusizer units
	$(Q)GPUSIZER=$(CURDIR)/$(BUILD)/gpusizer UNIT_DIR=$(CURDIR)/$(BUILD)/tests sh tests/run.sh
test: check

# The README's main job: the committed default spec into out/, no network.
report: deps
	$(Q)$(MAKE) --no-print-directory gpusizer
	./gpusizer report --offline

sanitize: deps
	$(Q)sh tools/deps.sh clang fuzz
	$(Q)$(MAKE) --no-print-directory check BUILD=build/asan CC=clang \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" CFLAGS="-O1 -g"

valgrind: deps
	$(Q)sh tools/deps.sh valgrind
	$(Q)$(MAKE) --no-print-directory $(BUILD)/gpusizer units
	$(Q)GPUSIZER=$(CURDIR)/$(BUILD)/gpusizer UNIT_DIR=$(CURDIR)/$(BUILD)/tests \
	  GS_WRAP="valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
	  sh tests/run.sh

accuracy: gpusizer
	python3 tests/accuracy.py

bench: gpusizer
	$(Q)sh bench/run.sh

clean:
	rm -rf build gpusizer

-include $(OBJ:.o=.d)
# Targets contributed per area (fuzz, bench, ...).
-include $(wildcard mk/*.mk)
