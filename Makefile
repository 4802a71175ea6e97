# steerlab build.
#
# Layout (see docs/architecture.md):
#   lib/*.c               -> $(BUILD)/libsteer.a        shared by every program
#   agents/X/*.c          -> bin/X                      agents/X/X.c holds main(); the other
#                                                       files also go to $(BUILD)/libagent_X.a
#                                                       so unit tests can link them
#   probes/collector/*.c  -> bin/collector
#   probes/clocks/*.c     -> $(BUILD)/libclocks.a       the analysis, linked into steerlab
#   lab/*.c               -> bin/steerlab               lab/main.c holds main()
#   tests/unit/test_*.c   -> $(BUILD)/tests/test_*      cmocka, linked with all of the above
#
# `make SAN=1 BUILD=build/asan unit` builds and runs the unit tests under
# AddressSanitizer and UndefinedBehaviorSanitizer; `make check` does both builds.

BUILD ?= build/release
SAN ?=
CC ?= cc
CFLAGS ?= -O2 -g

PKGS := libnl-3.0 libnl-route-3.0 libpcap inih jansson libknot
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

ALL_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilib -Ilab -Iprobes/clocks -I. $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
ALL_LDFLAGS := $(LDFLAGS)
LDLIBS := $(PKG_LIBS) -lm

# steerlab's version for the run report (git describe at build time). The
# stamp file changes only when the version does, and only report_env.o uses it
# (its rule is below the first target, all).
STEERLAB_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
VERSION_STAMP := $(BUILD)/version
$(shell mkdir -p $(BUILD) && [ "$$(cat $(VERSION_STAMP) 2>/dev/null)" = '$(STEERLAB_VERSION)' ] || echo '$(STEERLAB_VERSION)' > $(VERSION_STAMP))

ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_CFLAGS += $(SANFLAGS) -O1
ALL_LDFLAGS += $(SANFLAGS)
BINDIR := $(BUILD)/bin
else
BINDIR := bin
endif

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIB_SRC := $(wildcard lib/*.c)
LIBSTEER := $(BUILD)/libsteer.a

CLOCKS_SRC := $(wildcard probes/clocks/*.c)
LIBCLOCKS := $(BUILD)/libclocks.a

LAB_MAIN := lab/main.c
LAB_SRC := $(filter-out $(LAB_MAIN),$(wildcard lab/*.c))
LIBLAB := $(BUILD)/liblab.a

AGENTS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard agents/*/*.c)))))
AGENT_LIBS := $(foreach a,$(AGENTS),$(BUILD)/libagent_$(a).a)
PROGRAMS := $(addprefix $(BINDIR)/,$(AGENTS) collector steerlab)

TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

DEB_PKGS := gcc make pkg-config libc6-dev libpcap-dev libnl-3-dev libnl-route-3-dev \
	libinih-dev libjansson-dev libcmocka-dev libknot-dev iproute2 iputils-ping tcpdump procps jq \
	clang libclang-rt-14-dev bind9-dnsutils knot-dnsutils unbound gnuplot-nox tshark
# what the benchmarks compare against, installed by `make bench`
BENCH_PKGS := nsd knot dnsperf


.PHONY: tools all deps check unit unit-asan integration demo bench clean format install
all: $(PROGRAMS) $(TOOL_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/probes/clocks/report_env.o: $(VERSION_STAMP)
$(BUILD)/obj/probes/clocks/report_env.o: ALL_CFLAGS += -DSTEERLAB_VERSION='"$(STEERLAB_VERSION)"'

$(LIBSTEER): $(call obj,$(LIB_SRC))
	@mkdir -p $(dir $@)
	ar rcs $@ $^

$(LIBCLOCKS): $(call obj,$(CLOCKS_SRC))
	@mkdir -p $(dir $@)
	ar rcs $@ $^

$(LIBLAB): $(call obj,$(LAB_SRC))
	@mkdir -p $(dir $@)
	ar rcs $@ $^

define agent_rule
$(BUILD)/libagent_$(1).a: $(call obj,$(filter-out agents/$(1)/$(1).c,$(wildcard agents/$(1)/*.c)))
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^

$(BINDIR)/$(1): $(call obj,$(wildcard agents/$(1)/*.c)) $(LIBSTEER)
	@mkdir -p $$(dir $$@)
	$(CC) $(ALL_LDFLAGS) -o $$@ $$^ $(LDLIBS)
endef
$(foreach a,$(AGENTS),$(eval $(call agent_rule,$(a))))

$(BINDIR)/collector: $(call obj,$(wildcard probes/collector/*.c)) $(LIBSTEER)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BINDIR)/steerlab: $(call obj,$(LAB_MAIN)) $(LIBLAB) $(LIBCLOCKS) $(BUILD)/libagent_authd.a $(BUILD)/libagent_resolverd.a $(LIBSTEER)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIBLAB) $(LIBCLOCKS) $(AGENT_LIBS) $(LIBSTEER)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# Test tools (tests/tools/*.c): small programs the tests and benches drive,
# e.g. blast, a sendmmsg sender for the collector's drop test.
$(BUILD)/tools/%: $(BUILD)/obj/tests/tools/%.o $(LIBSTEER)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
tools: $(TOOL_BINS)

# Unit tests: no root needed. Each binary is a cmocka suite; the last line
# sums them up for CI.
unit: $(UNIT_BINS) $(PROGRAMS)
	@tests/run-unit.sh $(UNIT_BINS)

unit-asan:
	$(MAKE) SAN=1 BUILD=build/asan unit

# Integration tests need root (namespaces); tests/run-integration.sh says so
# visibly and counts them as skipped when not root.
integration: all
	@tests/run-integration.sh

deps:
	@missing=""; for p in $(DEB_PKGS) $(EXTRA_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; \
	else echo "deps: installing$$missing"; \
	if [ "$$(id -u)" != 0 ]; then echo "deps: need root to install$$missing (try: sudo make deps)" >&2; exit 1; fi; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing || exit 1; \
	for p in $$missing; do case $$p in nsd|knot|unbound) \
		if command -v systemctl >/dev/null && systemctl is-enabled $$p >/dev/null 2>&1; then \
			echo "deps: $$p was just installed as a service; stopping and disabling it (steerlab runs its own)"; \
			systemctl disable --now $$p >/dev/null 2>&1 || true; fi;; esac; done; fi

check: deps
	$(MAKE) all
	$(MAKE) unit
	$(MAKE) unit-asan
	$(MAKE) fuzz-run
	$(MAKE) integration

demo: deps
	$(MAKE) all
	bin/steerlab run topology/compare.ini

bench:
	$(MAKE) deps EXTRA_PKGS="$(BENCH_PKGS)"
	$(MAKE) all
	bench/bringup/run.sh
	bench/dns-qps/run.sh
	bench/analysis/run.sh

# dnsperf against authd (three policies), NSD and Knot on loopback
# (bench/dns-qps/run.sh [SECONDS] [ROUNDS]; BDQ_PERF=1 adds a perf profile).
.PHONY: bench-dns
bench-dns:
	$(MAKE) deps EXTRA_PKGS="$(BENCH_PKGS)"
	$(MAKE) $(BINDIR)/authd
	bench/dns-qps/run.sh

# `steerlab report` on a synthetic run of 10 million captured requests
# (tests/tools/synthrun) against tcpdump --count and tshark
# (bench/analysis/run.sh [PACKETS] [ROUNDS]; ~1.3 GB in TMPDIR; no root
# needed; BAN_PERF=1 adds a perf profile). What it compares against, tcpdump
# and tshark, is in DEB_PKGS.
.PHONY: bench-analysis
bench-analysis:
	$(MAKE) deps
	$(MAKE) $(BINDIR)/steerlab $(BUILD)/tools/synthrun
	bench/analysis/run.sh

# libFuzzer targets (clang and libclang-rt-14-dev), one per reader of
# untrusted bytes, each tests/fuzz/fuzz_NAME.c with its seed corpus in
# tests/fuzz/corpus/NAME/ (tests/fuzz/README.md):
#
#   authd              authd's response function and health-report parser
#   resolverd-answer   resolverd's handling of upstream answers
#   resolverd-query    resolverd's handling of client queries
#   topology           the topology parser, and its printed form parsed back
#   pcap               the capture reader against libpcap on the same bytes
#   events             the JSON Lines events reader
#   requests           the requests CSV reader
#
# `make fuzz` builds them all (build/fuzz/fuzz_NAME); `make fuzz-run` runs
# each for FUZZ_SECONDS (30: 3.5 min in all) from its seed corpus, which it
# replays first (a crash found once and kept there stays a test);
# `make fuzz-run-NAME FUZZ_SECONDS=600` runs one. New inputs go to
# build/fuzz/corpus-NAME/; a crash fails the run and leaves its input as
# build/fuzz/NAME-crash-*. Objects are built once for every target, with
# -fsanitize=fuzzer-no-link, address and undefined.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 30
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -D_GNU_SOURCE -Ilib -Ilab -Iprobes/clocks -I. \
	$(PKG_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP
FUZZ_TARGETS := authd resolverd-answer resolverd-query topology pcap events requests

FUZZ_SRC_authd := $(filter-out agents/authd/authd.c agents/authd/net.c,$(wildcard agents/authd/*.c))
# resolverd without its sockets: tests/fuzz/resolverd_env.c stands in for
# server.c, upstream_tcp.c and the epoll set
FUZZ_RSV_SRC := tests/fuzz/resolverd_env.c $(addprefix agents/resolverd/,msg.c cache.c \
	resolver.c upstream.c stats.c)
FUZZ_SRC_resolverd-answer := $(FUZZ_RSV_SRC)
FUZZ_SRC_resolverd-query := $(FUZZ_RSV_SRC)
# as `steerlab check` loads it: authd's and resolverd's parsers check the
# DNS sections
FUZZ_SRC_topology := $(addprefix lab/,topology.c topology_check.c topology_keys.c \
	topology_print.c overrides.c dnsconf.c resolvconf.c) $(FUZZ_SRC_authd) \
	$(addprefix agents/resolverd/,config.c config_check.c config_keys.c)
FUZZ_SRC_pcap := $(CLOCKS_SRC)
FUZZ_SRC_events := $(CLOCKS_SRC)
FUZZ_SRC_requests := $(CLOCKS_SRC)

fuzz_obj = $(patsubst %.c,build/fuzz/obj/%.o,$(1))

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

build/fuzz/obj/probes/clocks/report_env.o: FUZZ_CFLAGS += -DSTEERLAB_VERSION='"fuzz"'

define fuzz_rule
build/fuzz/fuzz_$(1): $(call fuzz_obj,tests/fuzz/fuzz_$(subst -,_,$(1)).c $(FUZZ_SRC_$(1)) $(LIB_SRC))
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $$@ $$^ $(PKG_LIBS) -lm

.PHONY: fuzz-run-$(1)
fuzz-run-$(1): build/fuzz/fuzz_$(1)
	@mkdir -p build/fuzz/corpus-$(1)
	build/fuzz/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=build/fuzz/$(1)- build/fuzz/corpus-$(1) tests/fuzz/corpus/$(1)
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

.PHONY: fuzz fuzz-run
fuzz: $(addprefix build/fuzz/fuzz_,$(FUZZ_TARGETS))

# one after the other: libFuzzer takes a core each
fuzz-run: fuzz
	@for t in $(FUZZ_TARGETS); do $(MAKE) --no-print-directory fuzz-run-$$t || exit 1; done

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
