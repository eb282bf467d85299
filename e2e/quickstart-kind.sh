#!/usr/bin/env bash
# The quickstart (docs/quickstart.md) on a fresh kind cluster, then checks from inside a tenant pod that the tenant
# lives as a cluster: its own API with its own token, DNS names of tenant Services, an HTTP call to one, and a rollout
# that leaves no Pod in Terminating. Needs Docker, kind, kubectl 1.29+ and a JDK 21+ (./mvnw finds one).
#
#   e2e/quickstart-kind.sh            # creates kind cluster "tenantplane-e2e", deletes it at the end
#   KEEP=1 e2e/quickstart-kind.sh     # keeps the cluster for a look around
#
# Exit code 0 only when every check passed; each check prints PASS or FAIL with what it saw.
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=${CLUSTER:-tenantplane-e2e}
CTX="kind-$CLUSTER"
K="kubectl --context $CTX"
WORK=$(mktemp -d)
FAILED=0
PF_PID=""

for tool in docker kind kubectl; do
  command -v "$tool" >/dev/null || { echo "e2e needs $tool on the PATH" >&2; exit 2; }
done

cleanup() {
  [ -n "$PF_PID" ] && kill "$PF_PID" 2>/dev/null || true
  if [ "${KEEP:-0}" != 1 ]; then kind delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

check() { # name, command...
  local name=$1; shift
  local out
  if out=$("$@" 2>&1); then echo "PASS $name"; else echo "FAIL $name"; echo "$out" | sed 's/^/    /'; FAILED=1; fi
}

echo "== 1. host cluster"
kind create cluster --name "$CLUSTER" --wait 120s

echo "== 2. service image"
./mvnw -B -q -Pimage -DskipTests -pl service -am package
kind load image-archive service/target/jib-image.tar --name "$CLUSTER"

echo "== 3. install"
$K apply -k k8s/
$K -n tenantplane-system rollout status deployment/tenantplane-service --timeout=300s

echo "== 4. a tenant"
$K create namespace team-dev
$K apply -f examples/yaml/
$K -n team-dev wait tc/dev --for=condition=Ready --timeout=600s
$K -n team-dev rollout status deployment/dev-dns --timeout=300s

echo "== 5. workloads inside the tenant"
$K -n team-dev get secret dev-kubeconfig -o jsonpath='{.data.config}' | base64 -d > "$WORK/dev.kubeconfig"
$K -n team-dev port-forward svc/dev-api 16443:443 >/dev/null 2>&1 &
PF_PID=$!
sleep 3
T="kubectl --kubeconfig $WORK/dev.kubeconfig --server https://127.0.0.1:16443 --tls-server-name dev-api.team-dev.svc"
$T apply -f examples/yaml/workloads/
$T rollout status deployment/nginx --timeout=300s

# A pod inside the tenant that may list pods with its own ServiceAccount token.
$T apply -f - <<'YAML'
apiVersion: v1
kind: ServiceAccount
metadata: {name: prober, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: default}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: prober-reads-pods, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
subjects:
- {kind: ServiceAccount, name: prober, namespace: default}
---
apiVersion: v1
kind: Pod
metadata: {name: prober, namespace: default, labels: {app: prober}}
spec:
  serviceAccountName: prober
  securityContext: {runAsNonRoot: true, runAsUser: 1001, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: kubectl
    image: docker.io/bitnami/kubectl:1.32
    command: [sleep, "3600"]
    resources: {requests: {cpu: 50m, memory: 64Mi}, limits: {cpu: 200m, memory: 128Mi}}
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
YAML
$T wait pod/prober --for=condition=Ready --timeout=300s

echo "== checks from inside the tenant pod"
check "its own token lists the tenant's pods (kubectl in-cluster config)" \
  $T exec prober -- kubectl get pods -n default -o name
check "the token is the tenant's: it cannot list host-only namespaces' pods" \
  bash -c "! $T exec prober -- kubectl get pods -n tenantplane-system 2>&1 | grep -q tenantplane-service"
check "a tenant Service resolves through the tenant's DNS" \
  $T exec prober -- getent hosts nginx.default.svc.cluster.local
check "the short name resolves with the tenant's search path" \
  $T exec prober -- getent hosts nginx
check "an HTTP call to the tenant Service answers" \
  $T exec prober -- bash -c 'exec 3<>/dev/tcp/nginx/80 && printf "GET / HTTP/1.0\r\nHost: nginx\r\n\r\n" >&3 && head -1 <&3 | grep -q " 200 "'
check "the tenant Service has the same ClusterIP on both sides" \
  bash -c "[ \"\$($T get svc nginx -o jsonpath='{.spec.clusterIP}')\" = \"\$($K -n team-dev get svc nginx-x-default-x-dev -o jsonpath='{.spec.clusterIP}')\" ]"

echo "== a rollout leaves no Pod in Terminating"
$T rollout restart deployment/nginx
$T rollout status deployment/nginx --timeout=300s
sleep 30
check "no tenant Pod is left Terminating" \
  bash -c "[ -z \"\$($T get pods -A -o jsonpath='{range .items[?(@.metadata.deletionTimestamp)]}{.metadata.name}{\"\\n\"}{end}')\" ]"

echo "== 7. delete the tenant"
$T delete pod prober --wait=false
$K -n team-dev delete tc dev --timeout=300s
check "nothing of tenant dev is left in team-dev" \
  bash -c "[ -z \"\$($K -n team-dev get all,networkpolicies,resourcequotas,limitranges -l tenantplane.io/tenant=dev -o name)\" ]"

exit $FAILED
