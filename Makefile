# nowetl — build, test, demo and benchmark on a fresh Debian machine.
SHELL := /bin/bash
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= release
# Release binaries link the Swift runtime statically: on the target host they need only Debian's shared C
# libraries (no RUNPATH into the toolchain). Debug builds (and `make test`) link it dynamically.
STATIC_FLAGS = $(if $(filter release,$(CONFIG)),--static-swift-stdlib)
BUILD_FLAGS ?= -c $(CONFIG) $(STATIC_FLAGS)
BIN = $(shell $(SWIFT) build $(BUILD_FLAGS) --show-bin-path 2>/dev/null)

# Debian packages the build and the tests need: -dev libraries for the C targets, tools the tests use
# (postgresql: the server the PostgreSQL tests start in a temporary directory, its psql and pg_isready;
# zsh, fish, man-db, groff-base: the completion-script and man-page tests run them).
DEBIAN_PACKAGES = pkg-config libmicrohttpd-dev libsqlite3-dev libyaml-dev zlib1g-dev libssl-dev libxml2-dev libcurl4-openssl-dev libgnutls28-dev libpq-dev sqlite3 libxml2-utils curl openssl python3 gzip coreutils postgresql zsh fish man-db groff-base

.PHONY: all deps build test demo bench install format lint clean

all: build

# Installs missing packages with apt when root; otherwise prints the exact command and stops.
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "make: installing$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) || exit 1; \
	  else \
	    echo "make: missing Debian packages. Run:"; echo "  sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi

# One product at a time: a plain `swift build` also builds NowSimTesting, which imports Testing, and the
# static runtime (swift_static) has no Testing module.
PRODUCTS = nowsim nowetl nowetl-bench

build: deps
	@for p in $(PRODUCTS); do echo "$(SWIFT) build $(BUILD_FLAGS) --product $$p"; \
	  $(SWIFT) build $(BUILD_FLAGS) --product $$p || exit 1; done

# The tests start the real nowsim binary; they find it through NOWSIM_BIN.
test: deps
	$(SWIFT) build --build-tests
	NOWSIM_BIN="$$($(SWIFT) build --show-bin-path)/nowsim" $(SWIFT) test --skip-build

demo: build
	@bash scripts/demo.sh "$(BIN)"

# Release nowsim, nowetl and nowetl-bench (the page-decoder timing), then the side-by-side table (see
# scripts/bench.py for the sizes: BENCH_ROWS, BENCH_BIG_ROWS=1000000, BENCH_SKIP, …); raw figures in
# $BENCH_JSON (default bench-results.json).
bench: build
	@bash scripts/bench.sh "$(BIN)"

install: build
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 "$(BIN)/nowsim" "$(BIN)/nowetl" "$(DESTDIR)$(PREFIX)/bin/"

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

lint: deps
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

clean:
	rm -rf .build
