#!/usr/bin/env bash
# The collector writes every packet and drops none: 20,000 requests/s for
# 3 s through a router namespace, both router links captured with the
# default buffer, every packet written with a nanosecond time stamp. The
# rate is what a gate that shares two cores with other tests can promise;
# the fastest rate a sender reaches here (200,000 requests/s and more) is
# the benchmark's (bench/load/run.sh, and by hand
# tests/tools/collector-check.sh 200000 3s).
# about 8 s
set -euo pipefail
cd "$(dirname "$0")/../.."
NS_PREFIX=it-cap tests/tools/collector-check.sh 20000 3s
