# OpenBench builds engines with `make EXE=<path> [EVALFILE=<net>]`: the net is
# embedded (TESSERA_NET), so the binary needs no file beside it. `make test`
# runs every test.
EXE ?=
EVALFILE ?=
CARGO ?= cargo
VENV := .venv
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)

# Every count of the shared perft suites, to full depth (not part of `make
# test`: about 530 billion nodes, an hour or more on 2 cores).
PERFT_DIR ?= ../shared/data/perft
PERFT_FILES ?= $(PERFT_DIR)/standard.epd $(PERFT_DIR)/fischer960.epd $(PERFT_DIR)/cpw_standard6.epd

.PHONY: all pgo test lint clean perft-full release

all:
	$(if $(EVALFILE),TESSERA_NET=$(abspath $(EVALFILE)) )$(CARGO) build --release
ifneq ($(EXE),)
	cp $(TARGET_DIR)/release/tessera$(if $(filter Windows_NT,$(OS)),.exe,) $(EXE)
endif

# The fastest build: profile-guided (PGO), trained on `bench` on every kernel
# level this CPU has, so that the search and each SIMD path are laid out for
# how they run. It plays the same moves as `make` (same `bench` node count) and
# runs on any x86-64 CPU like it; research/speed.md has what it buys. Needs
# llvm-profdata: `rustup component add llvm-tools`.
PGO_DIR := $(abspath $(TARGET_DIR))/pgo
LLVM_PROFDATA ?= $(firstword $(wildcard $(shell rustc --print sysroot)/lib/rustlib/*/bin/llvm-profdata) llvm-profdata)
NET_ENV := $(if $(EVALFILE),TESSERA_NET=$(abspath $(EVALFILE)) )
pgo:
	@command -v $(LLVM_PROFDATA) >/dev/null || { echo "llvm-profdata not found: rustup component add llvm-tools" >&2; exit 1; }
	rm -rf $(PGO_DIR)/profiles
	$(NET_ENV)RUSTFLAGS="$(RUSTFLAGS) -Cprofile-generate=$(PGO_DIR)/profiles" $(CARGO) build --release --target-dir $(PGO_DIR)/instrumented
	TESSERA_SIMD=scalar $(PGO_DIR)/instrumented/release/tessera bench 9 >/dev/null
	TESSERA_SIMD=avx2 $(PGO_DIR)/instrumented/release/tessera bench >/dev/null
	$(PGO_DIR)/instrumented/release/tessera bench >/dev/null
	$(LLVM_PROFDATA) merge -o $(PGO_DIR)/merged.profdata $(PGO_DIR)/profiles
	$(NET_ENV)RUSTFLAGS="$(RUSTFLAGS) -Cprofile-use=$(PGO_DIR)/merged.profdata" $(CARGO) build --release
ifneq ($(EXE),)
	cp $(TARGET_DIR)/release/tessera$(if $(filter Windows_NT,$(OS)),.exe,) $(EXE)
endif

# The archives players download (dist/, git-ignored): Linux static and Windows,
# one per CPU level, and SHA256SUMS; deploy/test_release.py tests them.
release:
	deploy/release.sh

$(VENV)/installed: tests/uci/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/uci/requirements.txt
	touch $@

# The `tune` build (every search constant a UCI option, for tournaments/spsa.py)
# is built first and kept as target/tessera-tune; the plain build then relinks
# target/release/tessera (the dependencies are shared).
# Every test that could not run here (a CPU feature, ../shared/data, an engine
# missing) is written to SKIP_LOG and listed at the end; the release build is
# made first, so a test that needs it never skips (TESSERA_EXPECT).
SKIP_LOG := $(abspath $(TARGET_DIR))/test-skips.txt
export TESSERA_SKIP_LOG := $(SKIP_LOG)
comma := ,
export TESSERA_EXPECT := $(if $(TESSERA_EXPECT),$(TESSERA_EXPECT)$(comma))release-build

test: $(VENV)/installed
	@mkdir -p $(dir $(SKIP_LOG)) && rm -f $(SKIP_LOG)
	$(CARGO) build --release --features tune
	cp $(TARGET_DIR)/release/tessera $(TARGET_DIR)/tessera-tune
	$(CARGO) build --release
	$(CARGO) test --release --workspace
	TESSERA_TUNE_BIN=$(abspath $(TARGET_DIR))/tessera-tune $(VENV)/bin/python -m pytest -q tests/uci tests/tournaments
	@if [ -s $(SKIP_LOG) ]; then echo "Skipped here ($$(wc -l < $(SKIP_LOG)) tests; test [missing resource] reason):"; sort $(SKIP_LOG) | sed 's/^/  /'; else echo "Skipped here: none"; fi

# Formatting and clippy with warnings as errors (not part of `make test`: a
# newer toolchain's new lints should not fail a build that works).
lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

perft-full:
	$(CARGO) build --release
	$(TARGET_DIR)/release/tessera perft-suite $(PERFT_FILES)

clean:
	$(CARGO) clean
	rm -rf $(VENV)
