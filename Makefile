# steerlab build.
#
# Layout (see docs/architecture.md):
#   lib/*.c               -> $(BUILD)/libsteer.a        shared by every program
#   agents/X/*.c          -> bin/X                      agents/X/X.c holds main(); the other
#                                                       files also go to $(BUILD)/libagent_X.a
#                                                       so unit tests can link them
#   probes/collector/*.c  -> bin/collector                collector.c holds main(); the other
#                                                       files also go to $(BUILD)/libcollector.a
#   probes/clocks/*.c     -> $(BUILD)/libclocks.a       the clocks of a run and its verdict, and
#                                                       the model beside them (libmodel)
#   probes/report/*.c     -> $(BUILD)/libreport.a       the report on the clocks; both linked
#                                                       into steerlab
#   probes/model/*.c      -> $(BUILD)/libmodel.a        the model of the clocks from a
#                                                       topology (docs/model.md)
#   lab/ROOM/*.c          -> bin/steerlab               lab/cli/main.c holds main()
#   tests/unit/test_*.c   -> $(BUILD)/tests/test_*      cmocka, linked with all of the above
#
# `make SAN=1 BUILD=build/asan unit` builds and runs the unit tests under
# AddressSanitizer and UndefinedBehaviorSanitizer; `make check` does both builds.

BUILD ?= build/release
SAN ?=
CC ?= cc
CFLAGS ?= -O2 -g

PKGS := libnl-3.0 libnl-route-3.0 libpcap jansson libknot
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

ALL_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
# gold (binutils): links the 126 unit tests, agents and tools in half of
# ld.bfd's CPU time (the sanitizers' build: 20 CPU-s against 43), which
# make check's two cores feel; FUSE_LD= links with the default
FUSE_LD ?= -fuse-ld=gold
ALL_LDFLAGS := $(FUSE_LD) $(LDFLAGS)
LDLIBS := $(PKG_LIBS) -lm

# steerlab's version for the run report (git describe at build time). The
# stamp file changes only when the version does, and only report_env.o and
# lib/csvmeta.o (the CSV files' '# steerlab VERSION' line) use it
# (its rule is below the first target, all).
STEERLAB_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
VERSION_STAMP := $(BUILD)/version
$(shell mkdir -p $(BUILD) && [ "$$(cat $(VERSION_STAMP) 2>/dev/null)" = '$(STEERLAB_VERSION)' ] || echo '$(STEERLAB_VERSION)' > $(VERSION_STAMP))

# Where `make install` puts things (DESTDIR is prepended to each; see the
# install target). LIBEXECDIR is compiled into steerlab, which looks there for
# its agents when they are not beside it (lab/build/agentdir.c); like the version,
# a stamp file rebuilds that one object when it changes.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/steerlab
DATADIR ?= $(PREFIX)/share/steerlab
DOCDIR ?= $(PREFIX)/share/doc/steerlab
MANDIR ?= $(PREFIX)/share/man
PATHS_STAMP := $(BUILD)/paths
$(shell [ "$$(cat $(PATHS_STAMP) 2>/dev/null)" = '$(LIBEXECDIR)' ] || echo '$(LIBEXECDIR)' > $(PATHS_STAMP))

ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# -O0: compiles in a third of -O1's time (the build is most of make check's
# sanitizer stage; the tests it runs take seconds either way), and hides no
# error the sanitizers find; -O2's warnings come from the release build.
# -g1: the line tables a sanitizer's report needs, 12 % less to build than -g
ALL_CFLAGS += $(SANFLAGS) -O0 -g1
ALL_LDFLAGS += $(SANFLAGS)
OUTBIN := $(BUILD)/bin
else
OUTBIN := bin
endif

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIB_SRC := $(wildcard lib/*.c)
LIBSTEER := $(BUILD)/libsteer.a

COLLECTOR_SRC := $(filter-out probes/collector/collector.c,$(wildcard probes/collector/*.c))
LIBCOLLECTOR := $(BUILD)/libcollector.a

CLOCKS_SRC := $(wildcard probes/clocks/*.c)
LIBCLOCKS := $(BUILD)/libclocks.a

REPORT_SRC := $(wildcard probes/report/*.c)
LIBREPORT := $(BUILD)/libreport.a

MODEL_SRC := $(wildcard probes/model/*.c)
LIBMODEL := $(BUILD)/libmodel.a

LAB_MAIN := lab/cli/main.c
LAB_SRC := $(filter-out $(LAB_MAIN),$(wildcard lab/*/*.c))
LIBLAB := $(BUILD)/liblab.a

AGENTS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard agents/*/*.c)))))
AGENT_LIBS := $(foreach a,$(AGENTS),$(BUILD)/libagent_$(a).a)
PROGRAMS := $(addprefix $(OUTBIN)/,$(AGENTS) collector steerlab)

TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

DEB_PKGS := gcc make pkg-config libc6-dev libpcap-dev libnl-3-dev libnl-route-3-dev \
	libjansson-dev libcmocka-dev libknot-dev iproute2 iputils-ping tcpdump procps jq \
	clang libclang-rt-14-dev bind9-dnsutils knot-dnsutils unbound gnuplot-nox tshark mandoc \
	frr nftables clang-format knot-resolver bind9 libnetfilter-queue-dev libmnl-dev libnftnl-dev \
	libmicrohttpd-dev libcurl4-openssl-dev nginx libnftables-dev pdns-server pdns-backend-bind \
	gdnsd graphviz chromium python3 slurmctld slurmd slurm-client munge
# what the benchmarks compare against, installed by `make bench`
BENCH_PKGS := nsd knot dnsperf


.PHONY: tools all deps check unit unit-build unit-bins unit-run unit-sh unit-asan man-lint integration demo bench \
	clean format format-check install uninstall
all: $(PROGRAMS) $(TOOL_BINS)

# Include paths, per directory. A file finds the headers of its own
# directory (#include "x.h" looks there first), lib/'s, and the public
# header of each module it uses, and nothing else, so an include of another
# module's internals does not compile. Each public header is exported alone
# in a directory of its own under $(BUILD)/include (a symbolic link), so
# that -I for it reaches no other header of its module. The unit tests are
# white-box: they see every directory.
EXPORT := $(BUILD)/include
# the agents' declared checks, the one function each the lab calls to check
# the configuration it writes (lab/build/dnsconf.c, lab/build/resolvconf.c), by path
LAB_AGENT_HEADERS := agents/authd/authd_check.h agents/authd/authd_export.h \
	agents/resolverd/resolverd_check.h

define export_rule
EXPORTS += $(EXPORT)/$(1)
$(EXPORT)/$(1): $(2)
	@mkdir -p $$(dir $$@)
	ln -sfn $$(abspath $$<) $$@
endef
# probes/clocks's public header is clocks.h with the part headers it
# includes (each part's contract, docs/architecture.md); its _int.h stay home
CLOCKS_PUBLIC_H := $(filter-out %_int.h,$(wildcard probes/clocks/*.h))
$(foreach h,$(CLOCKS_PUBLIC_H),$(eval $(call export_rule,clocks/$(notdir $(h)),$(h))))
$(eval $(call export_rule,report/report.h,probes/report/report.h))
$(eval $(call export_rule,model/model.h,probes/model/model.h))
$(eval $(call export_rule,model/model_design.h,probes/model/model_design.h))
$(eval $(call export_rule,model/model_steer.h,probes/model/model_steer.h))
# lab/ is in rooms, each with one public header, each room above the ones it
# uses: topology <- build <- run <- cli (docs/architecture.md). A room sees
# its own headers, and the public header of each room below it, never of one
# above, so no circle between rooms compiles.
$(eval $(call export_rule,lab-topology/topology.h,lab/topology/topology.h))
$(eval $(call export_rule,lab-build/lab.h,lab/build/lab.h))
$(eval $(call export_rule,lab-run/run.h,lab/run/run.h))
$(foreach h,$(LAB_AGENT_HEADERS),$(eval $(call export_rule,lab-agents/$(h),$(h))))

$(BUILD)/obj/lib/%.o: INC := -Ilib
$(BUILD)/obj/agents/%.o: INC := -Ilib
$(BUILD)/obj/probes/collector/%.o: INC := -Ilib
$(BUILD)/obj/probes/clocks/%.o: INC := -Ilib
# the model beside the measurement: the run's topology.ini loaded, the
# model of it (clocks_model.c, for the timeline's later failures
# clocks_model_fail.c and, for the steering, clocks_model_steer.c alone;
# the rest of the analysis sees neither)
$(BUILD)/obj/probes/clocks/clocks_model.o: INC := -Ilib -I$(EXPORT)/model -I$(EXPORT)/lab-topology
$(BUILD)/obj/probes/clocks/clocks_model_fail.o: INC := -Ilib -I$(EXPORT)/model -I$(EXPORT)/lab-topology
$(BUILD)/obj/probes/clocks/clocks_model_steer.o: INC := -Ilib -I$(EXPORT)/model -I$(EXPORT)/lab-topology
$(BUILD)/obj/probes/report/%.o: INC := -Ilib -I$(EXPORT)/clocks
# the model reads a loaded topology (model_topo.c)
$(BUILD)/obj/probes/model/%.o: INC := -Ilib -I$(EXPORT)/lab-topology
$(BUILD)/obj/lab/topology/%.o: INC := -Ilib
$(BUILD)/obj/lab/build/%.o: INC := -Ilib -I$(EXPORT)/lab-topology -I$(EXPORT)/lab-agents
$(BUILD)/obj/lab/run/%.o: INC := -Ilib -I$(EXPORT)/lab-topology -I$(EXPORT)/lab-build -I$(EXPORT)/clocks \
	-I$(EXPORT)/report
$(BUILD)/obj/lab/cli/%.o: INC := -Ilib -I$(EXPORT)/lab-topology -I$(EXPORT)/lab-build -I$(EXPORT)/lab-run \
	-I$(EXPORT)/clocks -I$(EXPORT)/report -I$(EXPORT)/model
$(BUILD)/obj/tests/tools/%.o: INC := -Ilib -I$(EXPORT)/clocks
$(BUILD)/obj/tests/unit/%.o: INC := -Ilib -Ilab/topology -Ilab/build -Ilab/run -Ilab/cli -Iprobes/clocks -Iprobes/report \
	-Iprobes/model -I.

$(BUILD)/obj/%.o: %.c | $(EXPORTS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC) -c $< -o $@

$(BUILD)/obj/probes/report/report_env.o: $(VERSION_STAMP)
$(BUILD)/obj/probes/report/report_env.o: ALL_CFLAGS += -DSTEERLAB_VERSION='"$(STEERLAB_VERSION)"'
$(BUILD)/obj/lib/csvmeta.o: $(VERSION_STAMP)
$(BUILD)/obj/lib/csvmeta.o: ALL_CFLAGS += -DSTEERLAB_VERSION='"$(STEERLAB_VERSION)"'

$(BUILD)/obj/lab/build/agentdir.o: $(PATHS_STAMP)
$(BUILD)/obj/lab/build/agentdir.o: ALL_CFLAGS += -DSTEERLAB_LIBEXECDIR='"$(LIBEXECDIR)"'

$(LIBSTEER): $(call obj,$(LIB_SRC))
	@mkdir -p $(dir $@)
	ar rcs $@ $^

$(LIBCLOCKS): $(call obj,$(CLOCKS_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBREPORT): $(call obj,$(REPORT_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBMODEL): $(call obj,$(MODEL_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBCOLLECTOR): $(call obj,$(COLLECTOR_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBLAB): $(call obj,$(LAB_SRC))
	@mkdir -p $(dir $@)
	ar rcs $@ $^

define agent_rule
$(BUILD)/libagent_$(1).a: $(call obj,$(filter-out agents/$(1)/$(1).c,$(wildcard agents/$(1)/*.c)))
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^

$(OUTBIN)/$(1): $(call obj,$(wildcard agents/$(1)/*.c)) $(LIBSTEER)
	@mkdir -p $$(dir $$@)
	$(CC) $(ALL_LDFLAGS) -o $$@ $$^ $(LDLIBS) $$(LDLIBS_$(1))
endef
$(foreach a,$(AGENTS),$(eval $(call agent_rule,$(a))))

# routed's resilient nexthop groups (agents/routed/knh.c)
LDLIBS_routed := $(shell pkg-config --libs libmnl 2>/dev/null)
$(BUILD)/tests/test_routed_kroute: LDLIBS += $(LDLIBS_routed)
# sited's and the client's HTTP libraries (agents/sited/http.c, agents/client/http.c)
LDLIBS_sited := $(shell pkg-config --libs libmicrohttpd 2>/dev/null)
LDLIBS_client := $(shell pkg-config --libs libcurl 2>/dev/null)

# linkd's own libraries: NFQUEUE and nftables (agents/linkd/nfqueue.c, nftable.c)
LINKD_PKGS := libnetfilter_queue libmnl libnftnl
LDLIBS_linkd := $(shell pkg-config --libs $(LINKD_PKGS) 2>/dev/null)
# the unit tests of linkd's kernel side link them too
$(BUILD)/tests/test_linkd_kernel: LDLIBS += $(LDLIBS_linkd)

$(OUTBIN)/collector: $(call obj,$(wildcard probes/collector/*.c)) $(LIBSTEER)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# $+, not $^: liblab twice (lab/cli and lab/run use the report, the report the
# clocks, the clocks and lab/cli the model, the model lab/topology)
# the timeline's nftables tables (a freeze, DNS outages) loaded in-process
# through libnftables, in the node's namespace (lab/run/actions.c)
LDLIBS_lab := $(shell pkg-config --libs libnftables 2>/dev/null)
$(OUTBIN)/steerlab: $(call obj,$(LAB_MAIN)) $(LIBLAB) $(LIBREPORT) $(LIBCLOCKS) $(LIBMODEL) $(LIBLAB) $(BUILD)/libagent_authd.a $(BUILD)/libagent_resolverd.a $(LIBSTEER)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $+ $(LDLIBS) $(LDLIBS_lab)

# The objects of tests and tools are made through pattern rules, so make
# would take them for intermediates and delete them after linking, and every
# `make unit` would compile every test again: keep them. (Only them: a
# .SECONDARY: without names would also let a deleted object go unrebuilt.)
.SECONDARY: $(call obj,$(UNIT_SRC) $(wildcard tests/tools/*.c))

# The suites' own code at -O0 -g1 (what they test, lib/, agents/, lab/ and
# probes/, stays at CFLAGS): their 130 files took 18 s of the gate's build
# on two cores at -O2 -g, 9.6 s so
$(call obj,$(UNIT_SRC)): ALL_CFLAGS += -O0 -g1

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIBLAB) $(LIBREPORT) $(LIBCLOCKS) $(LIBMODEL) $(LIBLAB) $(AGENT_LIBS) $(LIBCOLLECTOR) $(LIBSTEER)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $+ $(LDLIBS) $(LDLIBS_sited) $(LDLIBS_client) $(LDLIBS_lab) -lcmocka

# Test tools (tests/tools/*.c): small programs the tests and benches drive,
# e.g. blast, a sendmmsg sender for the collector's drop test.
$(BUILD)/tools/%: $(BUILD)/obj/tests/tools/%.o $(LIBSTEER)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# capdump reads captures through the analysis (libclocks, which the model's
# library and lab/topology's loader follow: clocks_model.c)
$(BUILD)/tools/capdump: $(BUILD)/obj/tests/tools/capdump.o $(LIBCLOCKS) $(LIBMODEL) $(LIBLAB) $(LIBSTEER)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

tools: $(TOOL_BINS)

# Unit tests: no root needed. Each binary is a cmocka suite; the last line
# sums them up for CI. unit-build only builds them, unit-run only runs them
# (make check builds everything at once, then runs).
unit: unit-build
	@$(MAKE) --no-print-directory unit-run

unit-build: $(UNIT_BINS) $(PROGRAMS)

# the suites alone, without the programs: the gate's sanitizer build, whose
# programs nothing runs (its suites start none; the shell tests and the
# labs run the release build's), and whose 9 links took 19 s of it
unit-bins: $(UNIT_BINS)

unit-run:
	@tests/run-unit.sh $(UNIT_BINS)

unit-asan:
	$(MAKE) SAN=1 BUILD=build/asan unit

# Unit tests in shell (tests/unit/test_*.sh), no root either: the Wireshark
# dissector read by tshark against the analysis (test_dissector.sh), make
# install and uninstall into a temporary DESTDIR (test_install.sh), every
# agent's command-line errors and help (test_agent_opts.sh, of OUTBIN's),
# no pipe into grep -q or head under pipefail (test_sh_pipes.sh).
UNIT_SH := $(wildcard tests/unit/test_*.sh)
unit-sh: $(PROGRAMS) $(BUILD)/tools/capdump
	@BUILD=$(BUILD) OUTBIN=$(OUTBIN) tests/run-unit.sh $(UNIT_SH)

# The man pages (docs/man, mdoc) as man(1) reads them: mandoc -Tlint at its
# strictest (style), and groff -wall as man -l renders them. mandoc's
# "referenced manual not found" depends on the man database of the machine
# (our pages are not in it until installed), so it is left out, and each
# .Xr is checked instead: to a page of docs/man, or to one of MAN_EXTERNAL.
MAN_PAGES := $(wildcard docs/man/*.[1-9])
MAN_EXTERNAL := dig.1 squeue.1 gnuplot.1 tshark.1 getrandom.2 sigqueue.3 recvmmsg.2 sendmmsg.2 pcap-filter.7 ip-netns.8 ip-route.8 nft.8 sudo.8 tc-netem.8 tcpdump.8
man-lint:
	@command -v mandoc >/dev/null || { echo "man-lint: no mandoc (sudo make deps)" >&2; exit 1; }
	@out=$$(mandoc -Tlint -Wstyle $(MAN_PAGES) 2>&1 | \
		grep -v -e 'referenced manual not found' -e 'mandoc.db lacks'); \
	if [ -n "$$out" ]; then echo "$$out" >&2; echo "man-lint: mandoc -Tlint: not clean" >&2; exit 1; fi
	@if command -v groff >/dev/null; then for p in $(MAN_PAGES); do \
		out=$$(groff -mandoc -wall -z -Tutf8 "$$p" 2>&1); \
		if [ -n "$$out" ]; then echo "$$out" >&2; echo "man-lint: groff -wall $$p: not clean" >&2; exit 1; fi; \
	done; else echo "man-lint: no groff: only mandoc checked"; fi
	@bad=$$(awk '$$1 == ".Xr" { print $$2 "." $$3 }' $(MAN_PAGES) | sort -u | while read -r x; do \
		[ -f "docs/man/$$x" ] || case " $(MAN_EXTERNAL) " in *" $$x "*) ;; *) echo "$$x";; esac; \
	done); \
	if [ -n "$$bad" ]; then echo "man-lint: .Xr to pages neither in docs/man nor in MAN_EXTERNAL:" $$bad >&2; exit 1; fi
	@echo "man-lint: $(words $(MAN_PAGES)) pages clean (mandoc -Tlint -Wstyle, groff -wall)"

# Integration tests need root (namespaces): tests/run-integration.sh runs
# them INTEGRATION_JOBS (4) at a time, each in a mount namespace of its own;
# without root it fails, unless STEERLAB_SKIP_ROOT=1 (then they are counted
# as skipped).
integration: all tools
	@tests/run-integration.sh

# A package's postinst may start its daemon on the host (invoke-rc.d, even
# without systemd as PID 1): the install runs with a /usr/sbin/policy-rc.d
# that forbids it (exit 101), made only if there is none and removed after,
# also on failure or interruption; on systemd machines the services are then
# stopped and disabled (steerlab runs its own, in the lab's namespaces).
deps:
	@missing=""; for p in $(DEB_PKGS) $(EXTRA_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; \
	else echo "deps: installing$$missing"; \
	if [ "$$(id -u)" != 0 ]; then echo "deps: need root to install$$missing (try: sudo make deps)" >&2; exit 1; fi; \
	prc=/usr/sbin/policy-rc.d; made=; \
	if [ ! -e $$prc ] && [ ! -L $$prc ]; then \
		trap 'rm -f '$$prc EXIT; trap 'exit 1' INT TERM HUP; \
		printf '#!/bin/sh\n# steerlab make deps: no daemon starts while it installs\nexit 101\n' >$$prc && \
		chmod 755 $$prc && made=1; fi; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	rc=$$?; if [ -n "$$made" ]; then rm -f $$prc; trap - EXIT; fi; [ $$rc = 0 ] || exit 1; \
	for p in $$missing; do case $$p in nsd|knot|unbound|frr|nginx|gdnsd) units=$$p;; pdns-server) units=pdns;; bind9) units="named bind9";; \
		knot-resolver) units="kresd@1 kresd.target";; *) units=;; esac; \
		for u in $$units; do \
		if command -v systemctl >/dev/null && systemctl is-enabled $$u >/dev/null 2>&1; then \
			echo "deps: $$p was just installed as a service ($$u); stopping and disabling it (steerlab runs its own)"; \
			systemctl disable --now $$u >/dev/null 2>&1 || true; fi; done; done; fi

# The gate (tests/run-check.sh): the formatting, the release build, its
# unit tests (the sanitizers' build beside them), the sanitizers' and the
# fuzzers' builds, the man pages, then the integration tests in parallel
# while the shell unit tests, the sanitizers' unit tests and the fuzzers run
# beside them at a lower priority; the wall time of each stage at the end.
# Root for the integration tests (STEERLAB_SKIP_ROOT=1 skips them, counted).
check: deps
	@MAKE="$(MAKE)" tests/run-check.sh

demo: deps
	$(MAKE) all
	bin/steerlab run topology/compare.ini

# every bench in turn (bench/all.sh; root), then one table of every ratio
# against its target and the row for docs/benchmarks.md's history
# (bench/summary.sh); BENCH_ONLY="analysis bgp" runs those alone.
bench:
	$(MAKE) deps EXTRA_PKGS="$(BENCH_PKGS)"
	$(MAKE) all tools
	bench/all.sh

# dnsperf against authd (three policies), NSD and Knot on loopback
# (bench/dns-qps/run.sh [SECONDS] [ROUNDS]; BDQ_PERF=1 adds a perf profile).
.PHONY: bench-dns
bench-dns:
	$(MAKE) deps EXTRA_PKGS="$(BENCH_PKGS)"
	$(MAKE) $(OUTBIN)/authd
	bench/dns-qps/run.sh

# `steerlab report` on a synthetic run of 10 million captured requests
# (tests/tools/synthrun) against tcpdump --count and tshark
# (bench/analysis/run.sh [PACKETS] [ROUNDS]; ~1.3 GB in TMPDIR; no root
# needed; BAN_PERF=1 adds a perf profile). What it compares against, tcpdump
# and tshark, is in DEB_PKGS.
.PHONY: bench-analysis
bench-analysis:
	$(MAKE) deps
	$(MAKE) $(OUTBIN)/steerlab $(BUILD)/tools/synthrun
	bench/analysis/run.sh

# N BGP routers (a ring of 10, 30, 60) brought up to converged against the
# same network with routing = static, and a withdrawal's convergence against
# FRR alone on two namespaces (bench/bgp/run.sh [SIZES] [ROUNDS];
# BBGP_SHAPE=random for a random connected graph; root; FRR is in DEB_PKGS).
.PHONY: bench-bgp
bench-bgp:
	$(MAKE) deps
	$(MAKE) all
	bench/bgp/run.sh

# The population client against the raw floor at 10^2 .. 10^5 logical
# clients (bench/load/run.sh [SECONDS [RATE [SIZES]]]; root).
.PHONY: bench-load
bench-load:
	$(MAKE) all tools
	bench/load/run.sh

# The delay line (linkd) against what it was told: one-way delay and loss of
# blast's datagrams captured across a veth, with 10 ms, then 10 ms with a
# 1 ms normal jitter and 1 % loss (bench/links/run.sh [SECONDS [RATE]];
# root).
.PHONY: bench-links
bench-links:
	$(MAKE) all tools
	bench/links/run.sh

# libFuzzer targets (clang and libclang-rt-14-dev), one per reader of
# untrusted bytes, each tests/fuzz/fuzz_NAME.c with its seed corpus in
# tests/fuzz/corpus/NAME/ (tests/fuzz/README.md):
#
#   authd              authd's response function, health-report and change parsers
#   resolverd-answer   resolverd's handling of upstream answers
#   resolverd-query    resolverd's handling of client queries
#   resolverd-walk     resolverd's walk on the servers' answers when iterating
#   topology           the topology parser, and its printed form parsed back
#   pcap               the capture reader against libpcap on the same bytes
#   events             the JSON Lines events reader
#   requests           the requests CSV reader
#   httpwire           the HTTP request and reply readers (lib/httpwire.c)
#
# `make fuzz` builds them all (build/fuzz/fuzz_NAME); `make fuzz-run` runs
# each for FUZZ_SECONDS (30: 4 min in all; make check gives each 5) from its
# seed corpus, which it replays first (a crash found once and kept there
# stays a test);
# `make fuzz-run-NAME FUZZ_SECONDS=600` runs one. New inputs go to
# build/fuzz/corpus-NAME/; a crash fails the run and leaves its input as
# build/fuzz/NAME-crash-*. Objects are built once for every target, with
# -fsanitize=fuzzer-no-link, address and undefined, at -O0: the gate builds
# them on its critical path (-O1 took 57 s, -O0 34 s on two cores), and
# runs each for 5 s, through its seed corpus whatever the speed.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 30
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -g1 -O0 -Wall -Wextra -D_GNU_SOURCE -Ilib -Ilab/topology -Ilab/build -Ilab/run -Ilab/cli \
	-Iprobes/clocks -Iprobes/model -I. \
	$(PKG_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP
FUZZ_TARGETS := authd resolverd-answer resolverd-query resolverd-walk topology pcap events requests \
	httpwire

FUZZ_SRC_authd := $(filter-out agents/authd/authd.c agents/authd/net.c,$(wildcard agents/authd/*.c))
# resolverd without its sockets: tests/fuzz/resolverd_env.c stands in for
# server.c, upstream_tcp.c and the loop
FUZZ_RSV_SRC := tests/fuzz/resolverd_env.c $(addprefix agents/resolverd/,msg.c cache.c iter.c iter_cache.c iter_msg.c deleg.c \
	resolver.c upstream.c stats.c)
FUZZ_SRC_resolverd-answer := $(FUZZ_RSV_SRC)
FUZZ_SRC_resolverd-query := $(FUZZ_RSV_SRC)
FUZZ_SRC_resolverd-walk := $(FUZZ_RSV_SRC)
# as `steerlab check` loads it: authd's and resolverd's parsers check the
# DNS sections
FUZZ_SRC_topology := $(wildcard lab/topology/*.c) $(addprefix lab/build/,overrides.c dnsconf.c resolvconf.c) \
	$(FUZZ_SRC_authd) \
	$(addprefix agents/resolverd/,check.c config.c config_check.c config_keys.c)
# the analysis, with the model it sets beside the clocks (clocks_model.c)
# and the topology's loader the model reads a run's topology.ini with
FUZZ_CLOCKS_SRC := $(CLOCKS_SRC) $(MODEL_SRC) $(wildcard lab/topology/*.c)
FUZZ_SRC_pcap := $(FUZZ_CLOCKS_SRC)
# the records written back as events, for the round trip
FUZZ_SRC_events := $(FUZZ_CLOCKS_SRC) tests/fuzz/events_write.c
# the client's writer of the same records, for the round trip
FUZZ_SRC_requests := $(FUZZ_CLOCKS_SRC) agents/client/record.c

fuzz_obj = $(patsubst %.c,build/fuzz/obj/%.o,$(1))

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

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

# libFuzzer takes a core each: make -jN fuzz-run runs N at once (make check
# runs them as many as there are CPUs, FUZZ_SECONDS each)
fuzz-run: $(addprefix fuzz-run-,$(FUZZ_TARGETS))

# make install: steerlab to BINDIR, its agents and the collector to
# LIBEXECDIR (where steerlab looks for them, lab/build/agentdir.c), the example
# topologies and the Wireshark dissector to DATADIR, README.md and docs/*.md
# to DOCDIR, the man pages to MANDIR; DESTDIR is prepended to every path
# (staged installs, packages). Every file installed, and every directory that
# had to be made for it, is listed in DATADIR/install.manifest; make
# uninstall (with the same PREFIX, DATADIR and DESTDIR) removes exactly those
# files, then those directories if they are empty, so a directory that was
# there before (/usr/local/bin) stays. The build itself needs no root:
# make && sudo make install.
MANIFEST = $(DATADIR)/install.manifest

install: $(PROGRAMS)
	@set -e; d='$(DESTDIR)'; list=$$(mktemp); trap 'rm -f "$$list"' EXIT; \
	m="$$d$(MANIFEST)"; n=0; \
	if [ -f "$$m" ]; then grep '^d /' "$$m" >"$$list" || true; fi; \
	if [ -n "$$d" ]; then mkdir -p "$$d"; fi; \
	mkdirs() { p=; for c in $$(echo "$$1" | tr / ' '); do p="$$p/$$c"; \
		if [ ! -d "$$d$$p" ]; then mkdir -m 755 "$$d$$p"; echo "d $$p" >>"$$list"; fi; done; }; \
	put() { mode=$$1 dir=$$2; shift 2; [ $$# -gt 0 ] || return 0; mkdirs "$$dir"; for f in "$$@"; do \
		install -m "$$mode" "$$f" "$$d$$dir/$${f##*/}"; \
		echo "f $$dir/$${f##*/}" >>"$$list"; n=$$((n + 1)); done; }; \
	put 755 '$(BINDIR)' $(OUTBIN)/steerlab; \
	put 755 '$(LIBEXECDIR)' $(addprefix $(OUTBIN)/,$(AGENTS) collector); \
	put 644 '$(DATADIR)/topology' $(wildcard topology/*.ini); \
	put 644 '$(DATADIR)/topology/presets' $(wildcard topology/presets/*.ini); \
	put 644 '$(DATADIR)/wireshark' probes/wireshark/steerlab.lua; \
	put 644 '$(DOCDIR)' README.md $(wildcard docs/*.md); \
	put 644 '$(MANDIR)/man5' $(wildcard docs/man/*.5); \
	put 644 '$(MANDIR)/man8' $(wildcard docs/man/*.8); \
	sort -u "$$list" >"$$m"; chmod 644 "$$m"; \
	echo "install: $$n files under $$d$(PREFIX) (steerlab in $(BINDIR), its agents in $(LIBEXECDIR));" \
		"make uninstall removes them ($(MANIFEST))"

uninstall:
	@set -e; d='$(DESTDIR)'; m="$$d$(MANIFEST)"; \
	if [ ! -f "$$m" ]; then echo "uninstall: no $$m: nothing installed there"; exit 0; fi; \
	sed -n 's|^f \(/.*\)|\1|p' "$$m" | while IFS= read -r p; do rm -f "$$d$$p"; done; \
	files=$$(grep -c '^f /' "$$m" || true); \
	dirs=$$(sed -n 's|^d \(/.*\)|\1|p' "$$m" | sort -r); rm -f "$$m"; \
	echo "$$dirs" | while IFS= read -r p; do [ -z "$$p" ] || rmdir "$$d$$p" 2>/dev/null || \
		{ [ ! -d "$$d$$p" ] || echo "uninstall: kept $$d$$p: not empty"; }; done; \
	echo "uninstall: removed $$files files and the directories install made"

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# Every C file as `make format` leaves it (.clang-format; docs/style.md): a
# file that is not fails the check, naming the line.
format-check:
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h') && \
	echo "format-check: $$(git ls-files '*.c' '*.h' | wc -l) files as clang-format leaves them"

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)

# Line coverage of the unit tests, per file (gcov, read by lcov): the tests
# built with --coverage in build/cov and run, then one line per source file
# the lab is made of (agents/, lab/, lib/, probes/), least covered first,
# and the total. lcov is installed on first use (COVERAGE_PKGS).
# docs/style.md names the files that must stay at or above 50 %.
COVERAGE_PKGS := lcov
.PHONY: coverage
coverage:
	$(MAKE) deps EXTRA_PKGS="$(COVERAGE_PKGS)"
	find build/cov -name '*.gcda' -delete 2>/dev/null; true
	$(MAKE) -j$(shell nproc) BUILD=build/cov OUTBIN=build/cov/bin CFLAGS='-O0 -g --coverage' \
		LDFLAGS=--coverage unit-build
	-$(MAKE) BUILD=build/cov OUTBIN=build/cov/bin unit-run >build/cov/unit.log 2>&1
	@tests/coverage.sh build/cov
