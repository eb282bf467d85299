# Sourced by ./mvnw and ./tenantplane: prints the home of a JDK whose major version is >= 21.
tenantplane_java_major() {
  local v
  v="$("$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}')"
  echo "${v%%.*}"
}
tenantplane_find_jdk() {
  local candidates=() c major
  [ -n "${TENANTPLANE_JAVA_HOME:-}" ] && candidates+=("$TENANTPLANE_JAVA_HOME")
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  for c in /usr/lib/jvm/* /opt/java/* /opt/jdk*; do [ -d "$c" ] && candidates+=("$c"); done
  for c in "${candidates[@]}"; do
    [ -x "$c/bin/java" ] && [ -x "$c/bin/javac" ] || continue
    major="$(tenantplane_java_major "$c")"
    if [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null; then echo "$c"; return 0; fi
  done
  echo "tenantplane: no JDK 21 or newer found (looked at TENANTPLANE_JAVA_HOME, JAVA_HOME, PATH, /usr/lib/jvm, /opt). Install one (e.g. Temurin 21) or set TENANTPLANE_JAVA_HOME." >&2
  return 1
}
