# uwb2mqtt — build, test and tooling entry points.
# `make test` is what CI runs (.ci/run): it installs what the machine lacks, builds, and runs `swift test`.

SHELL      := /bin/bash
SWIFT      ?= swift
APT_PKGS   := libserialport-dev libmosquitto-dev libyaml-dev libmicrohttpd-dev mosquitto mosquitto-clients pkg-config tmux
# What only the tests need: lintian checks the Debian package (PackagingTests), and brings man-db
# and groff-base, with which the manual pages are rendered (ManualPageTests); python3 runs the
# DWM3001C emulator written from the specs alone (IndependentEmulatorTests); Debian's Chromium,
# headless, opens the page of `watch --http` as a phone would (WatchWebTests), with a font to
# draw its text in.
TEST_PKGS  := lintian python3 chromium fonts-dejavu-core
FUZZ_TIME  ?= 60
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build release test test-alone soak fuzz bench profile link-order demo clean

all: build

# Install the Debian packages the build and the tests need, only when one is missing.
deps:
	@missing=""; for p in $(APT_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

# A release build made here is optimized with the agent's profile (`make profile`): the counts of
# what the agent ran on the bench's load, kept as text in Sources/uwb2mqtt/agent.proftext and made
# into LLVM's indexed form for the compiler. With them it inlines and lays out each function's
# code for the paths the agent takes (about 6 % fewer instructions a notification). A profile
# older than the code costs nothing but that: a function whose code changed since is compiled
# as without one. llvm-profdata comes with the swift.org toolchain, beside `swift`; a toolchain
# without it builds without the counts, and says so.
LLVM_PROFDATA := $(dir $(realpath $(shell command -v $(SWIFT))))llvm-profdata
PROFILE_TEXT  := Sources/uwb2mqtt/agent.proftext
PROFILE_DATA  := $(CURDIR)/.build/profile/agent.profdata
# What a release build needs first, its flags, and its note when the counts cannot be used.
PROFILE_USE   := $(if $(wildcard $(LLVM_PROFDATA)),$(PROFILE_DATA))
PGO_FLAGS     := $(if $(PROFILE_USE),-Xswiftc -Xfrontend -Xswiftc -ir-profile-use=$(PROFILE_DATA))
PGO_NOTE      := $(if $(PROFILE_USE),,@echo "note: no llvm-profdata beside $(SWIFT): built without the agent's counts ($(PROFILE_TEXT))")

# SwiftPM compiles again when a source changes, not when the counts do (nor the flag that names
# them): release builds made with other counts are removed with the old file (another
# --scratch-path, given in RELEASE_FLAGS, is left to its owner).
$(PROFILE_DATA): $(PROFILE_TEXT)
	rm -rf .build/static .build/*/release $(@D)
	@mkdir -p $(@D)
	$(LLVM_PROFDATA) merge -o $@ $<

release: deps $(PROFILE_USE)
	$(PGO_NOTE)
	$(SWIFT) build -c release $(PGO_FLAGS)

# The agent tests run the real uwb2mqtt executable beside the test bundle: build it too.
test: deps
	@$(MAKE) --no-print-directory deps APT_PKGS="$(TEST_PKGS)"
	$(SWIFT) build --build-tests
	$(SWIFT) build --product uwb2mqtt
	$(SWIFT) test --skip-build

# Every test in a process of its own, in an order shuffled by SEED (about 20 minutes here): a test
# that passes only after another one has run, or leaves something behind that another needs
# gone, fails here. Prints each failure and the seed, and exits 1 if there was one. Run it again
# with the same SEED to get the same order.
ifndef SEED
SEED := $(shell date +%s)
endif
test-alone: deps
	@$(MAKE) --no-print-directory deps APT_PKGS="$(TEST_PKGS)"
	$(SWIFT) build --build-tests
	$(SWIFT) build --product uwb2mqtt
	@$(SWIFT) test list --skip-build 2>/dev/null | grep '(' | shuf --random-source=<(yes $(SEED)) > .build/tests-shuffled.txt; \
	total=$$(wc -l < .build/tests-shuffled.txt); failed=0; \
	echo "$$total tests, each alone, shuffled with SEED=$(SEED)"; \
	while IFS= read -r test; do \
	  pattern=$$(printf '%s' "$$test" | sed 's/[][().*+?^$$|\\{}]/\\&/g'); \
	  summary=$$($(SWIFT) test --skip-build --filter "^$$pattern" 2>&1 | grep 'Test run with' | tail -1); \
	  case "$$summary" in \
	    *"with 0 tests"*) failed=$$((failed + 1)); echo "FAILED alone: $$test: the filter found no test";; \
	    *passed*) ;; \
	    *) failed=$$((failed + 1)); echo "FAILED alone: $$test: $${summary:-no summary}";; \
	  esac; \
	done < .build/tests-shuffled.txt; \
	echo "$$failed of $$total failed alone (SEED=$(SEED))"; [ $$failed = 0 ]

# The long variants of the fault-injection suite (Tests/FaultTests): 100 unplug/replug cycles,
# 30 s of malformed requests at 10,000/s. `make test` runs the same tests in their short form.
soak: deps
	$(SWIFT) build --build-tests
	$(SWIFT) build --product uwb2mqtt
	UWB2MQTT_SOAK=1 $(SWIFT) test --skip-build --filter FaultTests

# libFuzzer over the UCI reassembler and decoder, from the separate package in Tests/Fuzz
# (a fuzzer inside the root package breaks `swift test` at link time). New inputs go to
# .build/fuzz-corpus, crashes to .build/fuzz-artifacts/; the seeds (uci.md §7) are read only.
# SWIFT_BACKTRACE=enable=no: otherwise the Swift backtracer takes the crash and no crash file is written.
# It stops at the first crash (exit 77); to keep going and collect every crash file:
#   make fuzz FUZZ_FLAGS="-fork=1 -ignore_crashes=1"
FUZZ_DIR   := $(CURDIR)/.build
FUZZ_FLAGS ?=
# Each target runs for FUZZ_TIME seconds: UCI (seeds: the uci.md vectors), the config loader,
# the rules loader (and the engine on accepted rules), the agent's core driven by device bytes
# (AgentCore, as run and replay drive it), requests through the core, the fuse's message
# handling (FuseCore, as `uwb2mqtt fuse` drives it) on gateway statuses and ranges, and what
# `watch` reads (messages of the v1 and the site tree, drawn with the site map).
FUZZ_TARGETS ?= UCI Config Rules Core Request Fuse Watch
fuzz: deps
	cd Tests/Fuzz && $(SWIFT) build -c release --sanitize=fuzzer
	@for t in $(FUZZ_TARGETS); do \
	  seeds=Tests/Fuzz/seeds; [ "$$t" = UCI ] || seeds=Tests/Fuzz/seeds-$$(echo $$t | tr A-Z a-z); \
	  mkdir -p $(FUZZ_DIR)/fuzz-corpus-$$t $(FUZZ_DIR)/fuzz-artifacts; \
	  echo "== Fuzz$$t for $(FUZZ_TIME) s"; \
	  SWIFT_BACKTRACE=enable=no ./Tests/Fuzz/.build/release/Fuzz$$t \
	    -max_total_time=$(FUZZ_TIME) -max_len=4096 -print_final_stats=1 $(FUZZ_FLAGS) \
	    -artifact_prefix=$(FUZZ_DIR)/fuzz-artifacts/$$t- \
	    $(FUZZ_DIR)/fuzz-corpus-$$t $$seeds 2>&1 | grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss|#[0-9]+[[:space:]]+DONE)|ERROR|deadly|Test unit" ; \
	  status=$${PIPESTATUS[0]}; [ $$status -eq 0 ] || exit $$status; \
	done

# Measured figures, one table (also .build/bench.json), ~15 minutes: UCI decode on one core (pinned
# to CPU $(BENCH_CPU) while it runs), then the release `uwb2mqtt run` process — built as it is
# deployed, with the Swift runtime linked in statically (.build/static) — fed through a real
# pseudo-terminal at 100 / 1,000 / 10,000 measurements/s against a private mosquitto (CPU per
# measurement, latency, heap allocations per measurement with a perf uprobe when perf and root
# are there, VmRSS over 1,000,000 measurements), then the same workload through the Python
# baseline Tests/Bench/python_gateway.py, the floors (`cat`, a forwarder of Python's messages, a
# forwarder of the agent's own recorded messages), the agent's instructions per notification under
# callgrind (valgrind, which it installs), then the journal at its 64 MiB bound (~1 minute: append,
# open, drain through mosquitto, bytes written per record). BENCH_FLAGS=--quick: short windows.
BENCH_CPU   ?= 1
BENCH_FLAGS ?=
PY_BENCH_PKGS := pyserial==3.5 paho-mqtt==2.1.0
bench: deps $(PROFILE_USE)
	@$(MAKE) --no-print-directory deps APT_PKGS=valgrind
	$(PGO_NOTE)
	$(SWIFT) build -c release --static-swift-stdlib --product uwb2mqtt --scratch-path .build/static $(PGO_FLAGS)
	$(SWIFT) build -c release --product uwb2mqtt-bench $(PGO_FLAGS)
	@mkdir -p .build
	@skip=""; \
	python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore $(PY_BENCH_PKGS) >.build/bench-pip.log 2>&1 \
	  || echo "bench: pip install $(PY_BENCH_PKGS) failed (.build/bench-pip.log)"; \
	python3 -c 'import serial, paho.mqtt' 2>/dev/null || skip="pyserial/paho-mqtt not installable here"; \
	if [ -n "$$skip" ]; then echo "bench: skipping the Python baseline: $$skip"; fi; \
	BENCH_CPU=$(BENCH_CPU) ./.build/release/uwb2mqtt-bench --json .build/bench.json --agent .build/static/release/uwb2mqtt \
	  $(BENCH_FLAGS) $${skip:+--no-python "$$skip"}

# The agent's profile, what a release build is optimized and laid out with: run it again after
# changes that move the agent's work to new functions (a stale profile or order only costs speed
# and memory). First the counts (Sources/uwb2mqtt/agent.proftext): a quick bench run of an agent
# built to count what it executes (LLVM's IR instrumentation and its runtime from the toolchain),
# merged without the functions it never ran. Then, from the agent built with them, its link
# order (Sources/uwb2mqtt/link.order, see Package.swift): the functions it executes in another
# quick bench run, profiled with callgrind, hottest first (a function the order does not name
# goes after the named ones). valgrind 3.19 reads no DWARF 5, so that run profiles a copy
# without debug information (the symbols are the same).
PROFILE_DIR     := $(CURDIR)/.build/profile-run
PROFILE_RUNTIME := $(firstword $(wildcard $(dir $(LLVM_PROFDATA))../lib/clang/*/lib/linux/libclang_rt.profile-$(shell uname -m).a))
profile: deps
	@test -n "$(PROFILE_USE)" || { echo "profile: no llvm-profdata beside $(SWIFT) ($(LLVM_PROFDATA)): the swift.org toolchain has it"; exit 1; }
	@test -n "$(PROFILE_RUNTIME)" || { echo "profile: the toolchain beside $(SWIFT) has no libclang_rt.profile"; exit 1; }
	@$(MAKE) --no-print-directory $(PROFILE_DATA)
	rm -rf $(PROFILE_DIR) && mkdir -p $(PROFILE_DIR)/counts
	$(SWIFT) build -c release --product uwb2mqtt-bench $(PGO_FLAGS)
	$(SWIFT) build -c release --static-swift-stdlib --product uwb2mqtt --scratch-path .build/counting \
	  -Xswiftc -Xfrontend -Xswiftc -ir-profile-generate=$(PROFILE_DIR)/counts \
	  -Xlinker -u -Xlinker __llvm_profile_runtime -Xlinker $(PROFILE_RUNTIME)
	LLVM_PROFILE_FILE=$(PROFILE_DIR)/counts/agent-%p.profraw \
	  ./.build/release/uwb2mqtt-bench --quick --no-python "counting the agent's code" --no-own-floor \
	  --agent .build/counting/release/uwb2mqtt --json $(PROFILE_DIR)/counts.json >$(PROFILE_DIR)/counts.log 2>&1 \
	  || { tail $(PROFILE_DIR)/counts.log; exit 1; }
	@# A file-local function is named after the path of its object, which no other build shares:
	@# left out. LLVM's text format reads a line that begins with `$$` after a record's counters
	@# as its bitmap bytes, and every Swift name begins with one: each record says it has none.
	set -o pipefail; $(LLVM_PROFDATA) merge --sparse --text -o - $(PROFILE_DIR)/counts/agent-*.profraw \
	  | awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^\//' \
	  | awk '{ print } /^# Num Counters:$$/ { getline n; print n } /^# Counter Values:$$/ { for (i = 0; i < n; i++) { getline v; print v }; print "$$0" }' \
	  > $(PROFILE_TEXT)
	@echo "profile: $$(grep -c '^# Func Hash' $(PROFILE_TEXT)) functions in $(PROFILE_TEXT)"
	@$(MAKE) --no-print-directory link-order

LINK_ORDER_DIR := $(CURDIR)/.build/link-order
link-order: deps $(PROFILE_USE)
	@$(MAKE) --no-print-directory deps APT_PKGS=valgrind
	$(PGO_NOTE)
	rm -rf $(LINK_ORDER_DIR) && mkdir -p $(LINK_ORDER_DIR)
	$(SWIFT) build -c release --static-swift-stdlib --product uwb2mqtt --scratch-path .build/static $(PGO_FLAGS) -Xlinker -Map=$(LINK_ORDER_DIR)/uwb2mqtt.map
	$(SWIFT) build -c release --product uwb2mqtt-bench $(PGO_FLAGS)
	strip --strip-debug -o $(LINK_ORDER_DIR)/uwb2mqtt .build/static/release/uwb2mqtt
	printf '#!/bin/sh\nexec valgrind --tool=callgrind --demangle=no --callgrind-out-file=%s/callgrind.%%p %s/uwb2mqtt "$$@"\n' \
	  $(LINK_ORDER_DIR) $(LINK_ORDER_DIR) > $(LINK_ORDER_DIR)/agent && chmod +x $(LINK_ORDER_DIR)/agent
	./.build/release/uwb2mqtt-bench --quick --no-python "profiling the link order" --no-own-floor --agent $(LINK_ORDER_DIR)/agent \
	  --json $(LINK_ORDER_DIR)/bench.json >$(LINK_ORDER_DIR)/bench.log 2>&1 || { tail $(LINK_ORDER_DIR)/bench.log; exit 1; }
	@# A name defined in several objects (local helpers the compiler merged in each) would pull
	@# every object's whole section forward, not only the copy that ran: left out.
	nm --defined-only $(LINK_ORDER_DIR)/uwb2mqtt | awk '{print $$3}' | sort | uniq -d > $(LINK_ORDER_DIR)/ambiguous
	@# A name in a section of many functions (a prebuilt library's object compiled without a
	@# section per function) would pull the whole section forward: left out too (--map).
	set -o pipefail; ./.build/release/uwb2mqtt-bench link-order --map $(LINK_ORDER_DIR)/uwb2mqtt.map \
	  $(LINK_ORDER_DIR)/uwb2mqtt $(LINK_ORDER_DIR)/callgrind.* \
	  | grep -v -x -F -f $(LINK_ORDER_DIR)/ambiguous > $(LINK_ORDER_DIR)/link.order
	mv $(LINK_ORDER_DIR)/link.order Sources/uwb2mqtt/link.order
	@echo "link-order: $$(wc -l < Sources/uwb2mqtt/link.order) functions in Sources/uwb2mqtt/link.order"
	@# SwiftPM does not see the order file change: the next release builds link again.
	rm -f .build/static/release/uwb2mqtt .build/release/uwb2mqtt

# The agent on the simulator against a private broker, shown by `uwb2mqtt watch` until Ctrl-C
# (RAW=1: the MQTT traffic itself).
demo: deps
	$(SWIFT) build --product uwb2mqtt
	RAW=$(RAW) ./deploy/demo.sh

clean:
	rm -rf .build Tests/Fuzz/.build

# Deployment (deploy/, udev/). The binary is a release build with the Swift runtime linked in
# statically, so the gateway needs only Debian packages (libserialport0, libmosquitto1, libyaml-0-2,
# libmicrohttpd12 for `watch --http`).
# RELEASE_FLAGS adds build options (e.g. --scratch-path DIR); PREFIX and DESTDIR as usual:
#   make install                      → /usr/local/bin/uwb2mqtt, its manual pages, unit, udev rule, /etc/uwb2mqtt examples, user
#   make install DESTDIR=/tmp/stage   → staged only (no user, no chown, no reloads, no sudo)
#   make uninstall                    → keeps /etc/uwb2mqtt, the spool and the user (deploy/install.sh --uninstall --purge removes them)
#   make deb                          → dist/uwb2mqtt_<version>_<host arch>.deb, checked by lintian when it is installed
#   make deb DEB_MAINTAINER="Name <address>" [DEB_HOMEPAGE=https://…]
# The package's Maintainer field, who answers for it, is a setting: DEB_MAINTAINER, else
# DEBFULLNAME and DEBEMAIL as Debian's tools read them, else git's user.name and user.email;
# deploy/build-deb.sh builds nothing without one or with a placeholder. DEB_HOMEPAGE, when set,
# is its Homepage field; there is none otherwise.
PREFIX        ?= /usr/local
DESTDIR       ?=
RELEASE_FLAGS ?=
DEB_MAINTAINER ?=
DEB_HOMEPAGE   ?=
export DEB_MAINTAINER DEB_HOMEPAGE
STATIC_BUILD   = $(SWIFT) build -c release --static-swift-stdlib --product uwb2mqtt $(PGO_FLAGS) $(RELEASE_FLAGS)
RELEASE_BIN    = $$($(SWIFT) build -c release --static-swift-stdlib $(RELEASE_FLAGS) --show-bin-path)/uwb2mqtt

.PHONY: install uninstall deb

install: deps $(PROFILE_USE)
	$(PGO_NOTE)
	$(STATIC_BUILD)
	$(if $(DESTDIR),,$(SUDO)) env PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" ./deploy/install.sh --binary "$(RELEASE_BIN)"

uninstall:
	$(if $(DESTDIR),,$(SUDO)) env PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" ./deploy/install.sh --uninstall

deb: deps $(PROFILE_USE)
	$(PGO_NOTE)
	$(STATIC_BUILD)
	@set -o pipefail; package=$$(./deploy/build-deb.sh "$(RELEASE_BIN)" dist | tail -n 1) || exit 1; \
	echo "$$package"; \
	if command -v lintian >/dev/null 2>&1; then \
	  echo "lintian --fail-on error,warning $$package"; \
	  lintian --fail-on error,warning "$$package" || { echo "deb: lintian found errors or warnings in $$package"; exit 1; }; \
	else \
	  echo "deb: lintian is not installed: $$package is not checked (apt-get install lintian)"; \
	fi
