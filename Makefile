# OpenBench builds engines with `make EXE=<path> [EVALFILE=<net>]`: the net is
# embedded (TESSERA_NET), so the binary needs no file beside it. `make test`
# runs every test.
EXE ?=
EVALFILE ?=
CARGO ?= cargo
VENV := .venv
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)

.PHONY: all test clean

all:
	$(if $(EVALFILE),TESSERA_NET=$(abspath $(EVALFILE)) )$(CARGO) build --release
ifneq ($(EXE),)
	cp $(TARGET_DIR)/release/tessera$(if $(filter Windows_NT,$(OS)),.exe,) $(EXE)
endif

$(VENV)/installed: tests/uci/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/uci/requirements.txt
	touch $@

test: $(VENV)/installed
	$(CARGO) build --release
	$(CARGO) test --release --workspace
	$(VENV)/bin/python -m pytest -q tests/uci tests/tournaments

clean:
	$(CARGO) clean
	rm -rf $(VENV)
