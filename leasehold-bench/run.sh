#!/usr/bin/env bash
# Builds the benchmark jar and runs every benchmark once (about 16 minutes on 2 cores), writing
# leasehold-bench/RESULTS.md. Run it on an otherwise idle machine: the report says whether it was.
#
#   leasehold-bench/run.sh            the full run, for RESULTS.md
#   leasehold-bench/run.sh --smoke    every workload for one very short iteration
#   leasehold-bench/run.sh --out FILE write the report elsewhere (its charts go to charts/ beside it)
#
# Extra Maven flags (e.g. -o for offline) can be passed in MAVEN_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q ${MAVEN_ARGS:-} -Pbench -pl leasehold-bench -am package -DskipTests
exec java -Xms1g -Xmx1g -jar leasehold-bench/target/benchmarks.jar "$@"
