#!/usr/bin/env bash
# The collector drops nothing at the fastest rate a sender reaches here:
# 200,000 requests/s for 3 s through a router namespace, both router links
# captured with the default 64 MiB buffer, every packet written.
# about 8 s
set -euo pipefail
cd "$(dirname "$0")/../.."
NS_PREFIX=it-cap tests/tools/collector-check.sh 200000 3s
