# uwb2mqtt — build, test and tooling entry points.
# `make test` is what CI runs (.ci/run): it installs what the machine lacks, builds, and runs `swift test`.

SWIFT      ?= swift
APT_PKGS   := libserialport-dev libmosquitto-dev libyaml-dev mosquitto mosquitto-clients pkg-config
FUZZ_TIME  ?= 60
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build release test fuzz bench demo clean

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

release: deps
	$(SWIFT) build -c release

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# libFuzzer over the UCI reassembler and decoder, from the separate package in Tests/Fuzz
# (a fuzzer inside the root package breaks `swift test` at link time).
fuzz: deps
	cd Tests/Fuzz && $(SWIFT) build -c release --sanitize=fuzzer
	mkdir -p .build/fuzz-corpus
	cd Tests/Fuzz && SWIFT_BACKTRACE=enable=no ./.build/release/FuzzUCI \
	  -max_total_time=$(FUZZ_TIME) -max_len=1024 ../../.build/fuzz-corpus seeds

bench: deps
	$(SWIFT) build -c release --product uwb2mqtt-bench
	./.build/release/uwb2mqtt-bench

demo: deps
	@echo "make demo: coming — the agent (uwb2mqtt run) does not exist yet; see README.md"
	@exit 1

clean:
	rm -rf .build Tests/Fuzz/.build
