#!/usr/bin/env bash
# Validates deploy/: the Kubernetes manifests against the Kubernetes JSON
# schemas with kubeconform (schemas from the kubernetes-validate PyPI package,
# since kubeconform's default schema download is not reachable here), the
# systemd unit with `systemd-analyze verify`, and that the Dockerfile builds
# through the same scripts CI runs. Exit 77 (skip) when no tool can be had.
set -uo pipefail
top=$(cd "${srcdir:-$(dirname "$0")/../..}" && pwd)
build=$(pwd)
cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/actionbase-c
k8s_version=1.30.0
kubeconform_version=v0.8.0
kv_version=1.37.0
ran=0 failed=0
note() { echo "check-deploy: $*"; }
fail() { echo "check-deploy: FAIL: $*"; failed=1; }

find_kubeconform() {
  local c
  for c in "$(command -v kubeconform 2>/dev/null)" "$cache/bin/kubeconform" \
           "$(go env GOPATH 2>/dev/null)/bin/kubeconform"; do
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
  done
  command -v go >/dev/null || return 1
  note "installing kubeconform $kubeconform_version with go install (Go module proxy)" >&2
  GOBIN="$cache/bin" go install "github.com/yannh/kubeconform/cmd/kubeconform@$kubeconform_version" >&2 \
    && echo "$cache/bin/kubeconform"
}

# Prints a directory holding v$k8s_version-standalone-strict/<kind>.json:
# kubernetes-validate ships the schemas with their $refs pointing into one
# shared _definitions.json that kubeconform cannot follow, so the refs are
# inlined here into standalone files (the layout kubeconform reads).
find_schemas() {
  local dir=${AB_K8S_SCHEMAS:-$cache/k8s-schemas}
  local want="v$k8s_version-standalone-strict"
  if [ -f "$dir/$want/deployment-apps-v1.json" ]; then echo "$dir"; return 0; fi
  command -v python3 >/dev/null || return 1
  local tmp; tmp=$(mktemp -d)
  note "fetching the Kubernetes JSON schemas from PyPI (kubernetes-validate $kv_version)" >&2
  if python3 -m pip download --quiet --no-deps -d "$tmp" "kubernetes-validate==$kv_version" >&2; then
    python3 - "$tmp"/kubernetes_validate-*.whl "$dir/$want" "v$k8s_version-local-strict/" <<'EOF' >&2
import copy, json, os, sys, zipfile
wheel, out, src = sys.argv[1], sys.argv[2], sys.argv[3]
prefix = "kubernetes_validate/kubernetes-json-schema/" + src
kinds = ["configmap-v1", "secret-v1", "service-v1", "serviceaccount-v1", "persistentvolumeclaim-v1",
         "deployment-apps-v1", "statefulset-apps-v1", "daemonset-apps-v1", "job-batch-v1",
         "cronjob-batch-v1", "poddisruptionbudget-policy-v1", "networkpolicy-networking-v1",
         "ingress-networking-v1", "horizontalpodautoscaler-autoscaling-v2"]
with zipfile.ZipFile(wheel) as z:
    defs = json.loads(z.read(prefix + "_definitions.json"))["$defs"]
    def inline(node, seen):
        if isinstance(node, list):
            return [inline(x, seen) for x in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and "#/$defs/" in ref:
            name = ref.split("#/$defs/", 1)[1]
            if name in seen:          # recursive types (CRD schemas) stay open
                return {}
            return inline(copy.deepcopy(defs[name]), seen | {name})
        return {k: inline(v, seen) for k, v in node.items()}
    os.makedirs(out, exist_ok=True)
    for kind in kinds:
        schema = json.loads(z.read(prefix + kind + ".json"))
        schema.pop("$id", None)
        with open(os.path.join(out, kind + ".json"), "w") as f:
            json.dump(inline(schema, frozenset()), f)
EOF
  fi
  rm -rf "$tmp"
  [ -f "$dir/$want/deployment-apps-v1.json" ] && echo "$dir"
}

# ---- Kubernetes manifests ----
if kc=$(find_kubeconform) && schemas=$(find_schemas); then
  ran=1
  note "kubeconform $("$kc" -v) against $schemas/v$k8s_version-standalone-strict"
  "$kc" -strict -summary -output text -kubernetes-version "$k8s_version" \
    -schema-location "$schemas" \
    -skip Kustomization \
    "$top"/deploy/k8s/*.yaml || fail "kubeconform rejected deploy/k8s"
  # A broken manifest must be caught (the schemas really are applied).
  bad=$(mktemp --suffix=.yaml)
  sed 's/containerPort: 8080/containerPort: "eighty"/' "$top/deploy/k8s/actionbased.yaml" > "$bad"
  if "$kc" -strict -kubernetes-version "$k8s_version" -schema-location "$schemas" \
       "$bad" >/dev/null 2>&1; then
    fail "kubeconform accepted a manifest with a string containerPort"
  fi
  rm -f "$bad"
  # The verifier pods shard by their completion index.
  for f in verify-job.yaml verify-cronjob.yaml; do
    grep -q 'completionMode: Indexed' "$top/deploy/k8s/$f" \
      && grep -q -- '--shard=$(JOB_COMPLETION_INDEX)/' "$top/deploy/k8s/$f" \
      || fail "$f: not an Indexed Job sharding by JOB_COMPLETION_INDEX"
  done
else
  note "SKIP kubeconform: could not install kubeconform (go) or fetch the schemas (pip)"
fi

# ---- systemd unit ----
if command -v systemd-analyze >/dev/null; then
  ran=1
  unit_dir=$(mktemp -d)
  server="$build/src/actionbased"
  [ -x "$server" ] || server=$(command -v true)
  # The unit names the installed path; verify it against the built binary.
  sed "s|/usr/local/bin/actionbased|$server|" "$top/deploy/systemd/actionbased.service" \
    > "$unit_dir/actionbased.service"
  if out=$(systemd-analyze verify --man=no "$unit_dir/actionbased.service" 2>&1); then
    note "systemd-analyze verify: ok"
  else
    echo "$out"; fail "systemd-analyze verify"
  fi
  [ -n "$out" ] && echo "$out"
  for key in DynamicUser=yes ProtectSystem=strict NoNewPrivileges=yes StateDirectory=actionbase; do
    grep -q "^$key" "$top/deploy/systemd/actionbased.service" || fail "unit lacks $key"
  done
  rm -rf "$unit_dir"
else
  note "SKIP systemd-analyze: not installed"
fi

# ---- Dockerfile: the CI scripts, not a copy of them ----
ran=1
df="$top/deploy/docker/Dockerfile"
grep -q 'bash deploy/install-deps.sh' "$df" || fail "Dockerfile does not run deploy/install-deps.sh"
grep -q 'configure' "$df" && grep -q 'make install' "$df" || fail "Dockerfile does not configure/make install"
grep -q '^USER actionbase' "$df" || fail "Dockerfile does not drop to the actionbase user"
if [ -x "$build/src/actionbased" ]; then
  help=$("$build/src/actionbased" --help 2>&1)
  for flag in --config --listen --store; do
    grep -q -- "$flag" <<<"$help" || fail "entrypoint uses $flag, which actionbased --help does not list"
  done
fi
if python3 -c 'import yaml' 2>/dev/null; then
  python3 -c 'import sys, yaml; [list(yaml.safe_load_all(open(f))) for f in sys.argv[1:]]' \
    "$top/deploy/compose.yaml" "$top"/deploy/k8s/*.yaml || fail "YAML syntax"
fi

[ "$ran" = 1 ] || exit 77
[ "$failed" = 0 ] && note "all deploy checks passed"
exit "$failed"
