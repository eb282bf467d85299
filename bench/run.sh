#!/usr/bin/env bash
# Runs tenantplane's benchmarks. With no section named it runs them all (about 15 minutes) and rewrites
# docs/performance.md and docs/performance-plan.png; see docs/performance.md for the sections and options.
#   bench/run.sh                      everything, writes the docs
#   bench/run.sh plan|live|firstsync|footprint|scale|kubelet|cli   one or more sections, prints their table
#   bench/run.sh --quick              everything with small sizes, prints the table
#   bench/run.sh jmh PlanBenchmark -p objects=10000   any JMH run
# Builds bench/target/benchmarks.jar first (set TP_TARGET to build into another folder).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
source "$root/.ci/find-jdk.sh"
java_home="$(tenantplane_find_jdk)" || exit 1
target="${TP_TARGET:-target}"
jar="$here/$target/benchmarks.jar"
echo "bench: building $jar ..." >&2
"$root/mvnw" -B -q -o -Dtp.target="$target" -DskipTests -Dmaven.javadoc.skip=true -pl bench -am package >&2 \
  || "$root/mvnw" -B -q -Dtp.target="$target" -DskipTests -Dmaven.javadoc.skip=true -pl bench -am package >&2
cd "$root"
flags=(-Xmx4g)
# JMH 1.37 uses sun.misc.Unsafe; JDK 23+ warns about it on every fork.
[ "$(tenantplane_java_major "$java_home")" -ge 23 ] && flags+=(--sun-misc-unsafe-memory-access=allow)
# `jmh ...` hands its arguments to JMH as they are; the harness sections take the repository root.
[ "${1:-}" = jmh ] && exec "$java_home/bin/java" "${flags[@]}" -jar "$jar" "$@"
exec "$java_home/bin/java" "${flags[@]}" -jar "$jar" --repo "$root" "$@"
