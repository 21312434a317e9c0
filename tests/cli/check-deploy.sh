#!/usr/bin/env bash
# Checks deploy/ offline (no network, no container runtime) against the tree
# and the built binaries, under `make check` from the top build directory:
# - Dockerfile: every file COPY'd from the context exists, the build stage
#   runs deploy/install-deps.sh then configure/make install with the
#   --sysconfdir the entrypoint's --config path assumes, the runtime user is
#   created before USER names it, ENTRYPOINT is the path entrypoint.sh is
#   copied to, EXPOSE is the entrypoint's default port, and every flag of the
#   entrypoint and HEALTHCHECK is in `actionbased --help` / `actionbase --help`.
# - systemd unit: ExecStart runs an installed binary with flags from its
#   --help, the hardening keys are there, and `systemd-analyze verify` passes
#   (when systemd-analyze is installed; said on stderr otherwise).
# - k8s/*.yaml and compose.yaml parse (python3 + PyYAML); every container
#   command is a binary the build installs and its flags are in its --help;
#   selectors match pod labels; configMapKeyRef and configMap volume keys
#   exist in the ConfigMap; the verifier Jobs are Indexed with completions
#   equal to the N of --shard=K/N; kustomization lists files that exist.
# - Sample config and the ConfigMap's actionbased.conf: only [server] and
#   [engine] groups, every key (commented-out ones too) known to
#   src/server/config.c.
# Exit 0, 1 on a failed check, 77 (SKIP) when python3 has no PyYAML (the
# other checks ran; deploy/install-deps.sh installs python3-yaml).
# Not checked: the image is neither built nor linted (hadolint is not a
# Debian package; no Dockerfile linter is installed from Debian here), so
# base images, the runtime stage's package names and the shell steps are
# unverified; manifests are not validated against the Kubernetes API schemas
# unless kubeconform is on PATH and AB_K8S_SCHEMAS names a local schema
# directory (nothing is downloaded); compose.yaml is not run.
set -uo pipefail
top=$(cd "${srcdir:-$(dirname "$0")/../..}" && pwd)
build=$(pwd)
failed=0
note() { echo "check-deploy: $*" >&2; }
fail() { echo "check-deploy: FAIL: $*" >&2; failed=1; }

# The installed binaries' help texts (bin_PROGRAMS of the build).
help_dir=$(mktemp -d)
trap 'rm -rf "$help_dir"' EXIT
for bin in actionbased actionbase actionbase-verify; do
  if [ -x "$build/src/$bin" ]; then
    "$build/src/$bin" --help > "$help_dir/$bin" 2>&1 || true
  else
    fail "$build/src/$bin is not built (run from the top build directory after make)"
  fi
done
[ "$failed" = 0 ] || exit 1
# has_flag BIN FLAG: FLAG (--name or -x) is an option of BIN.
has_flag() { grep -qE -- "(^|[ ,])$2([=, ]|\$)" "$help_dir/$1"; }
check_flags() { # BIN WHERE FLAG...
  local bin=$1 where=$2 flag; shift 2
  for flag in "$@"; do
    has_flag "$bin" "$flag" || fail "$where: $bin has no option $flag"
  done
}
# The options a command line uses: -x and --name, without their values.
flags_of() { grep -oE -- '(^|[ "])--?[A-Za-z][A-Za-z-]*' <<<"$1" | sed 's/^[ "]*//' | sort -u; }

# ---- sample config keys ----
config_c="$top/src/server/config.c"
check_config_text() { # WHERE (the text on stdin)
  local where=$1 line group="" key n=0
  while IFS= read -r line; do
    case "$line" in
      \[*\]) group=${line#[}; group=${group%]}
             [ "$group" = server ] || [ "$group" = engine ] || fail "$where: unknown group [$group]" ;;
      *=*) key=${line%%=*}; key=${key#\#}; key=${key// /}
           # comment lines that are not settings (prose with an '=')
           [[ "$key" =~ ^[a-z][a-z-]*$ ]] || continue
           n=$((n + 1))
           grep -q "\"$key\"" "$config_c" || fail "$where: key $key ([$group]) is not read by src/server/config.c" ;;
    esac
  done
  [ "$n" -gt 0 ] || fail "$where: no settings found"
}
check_config_text deploy/config/actionbased.conf < "$top/deploy/config/actionbased.conf"

# ---- Dockerfile ----
df="$top/deploy/docker/Dockerfile"
while read -r _ args; do
  # COPY [--flag=...]... SRC... DEST: sources are relative to the context (the tree)
  read -ra words <<<"$args"
  [[ "${words[0]}" == --from=* ]] && continue
  srcs=()
  for w in "${words[@]}"; do [[ "$w" == --* ]] || srcs+=("$w"); done
  for ((i = 0; i < ${#srcs[@]} - 1; i++)); do
    [ -e "$top/${srcs[$i]}" ] || fail "Dockerfile: COPY source ${srcs[$i]} does not exist"
  done
done < <(grep -E '^(COPY|ADD) ' "$df")
grep -q 'bash deploy/install-deps.sh' "$df" || fail "Dockerfile does not run deploy/install-deps.sh"
grep -q 'configure ' "$df" && grep -q 'make install' "$df" || fail "Dockerfile does not configure/make install"
user=$(sed -n 's/^USER \([a-z_][a-z0-9_-]*\).*/\1/p' "$df")
[ -n "$user" ] || fail "Dockerfile does not drop privileges (no USER)"
grep -q "useradd .* $user\$\|useradd .* $user " "$df" || fail "Dockerfile: USER $user is never created"
ep=$(sed -n 's/^ENTRYPOINT \["\([^"]*\)".*/\1/p' "$df")
grep -q "^COPY deploy/docker/entrypoint.sh $ep\$" "$df" || fail "Dockerfile: ENTRYPOINT $ep is not where entrypoint.sh is copied"
entry="$top/deploy/docker/entrypoint.sh"
exec_line=$(sed -n '/^exec actionbased/,/"\$@"/p' "$entry" | tr -d '\\\n')
[ -n "$exec_line" ] || fail "entrypoint.sh does not exec actionbased"
# shellcheck disable=SC2046
check_flags actionbased entrypoint.sh $(flags_of "$exec_line")
conf=$(sed -n 's/.*--config \([^ ]*\).*/\1/p' <<<"$exec_line")
sysconf=$(sed -n 's/.*--sysconfdir=\([^ ]*\).*/\1/p' "$df")
[ "$conf" = "$sysconf/actionbase/actionbased.conf" ] \
  || fail "entrypoint --config $conf is not where make install puts the config (--sysconfdir=$sysconf)"
grep -q '^abconfdir = $(sysconfdir)/actionbase$' "$top/src/cli/local.mk" \
  && grep -q 'dist_abconf_DATA = deploy/config/actionbased.conf' "$top/src/cli/local.mk" \
  || fail "src/cli/local.mk no longer installs actionbased.conf in \$(sysconfdir)/actionbase"
port=$(sed -n 's/.*AB_LISTEN:-[^:]*:\([0-9]*\)}.*/\1/p' <<<"$exec_line")
grep -q "^EXPOSE $port\$" "$df" || fail "Dockerfile does not EXPOSE the entrypoint's port ${port:-?}"
hc=$(sed -n 's/^HEALTHCHECK .*CMD \[\(.*\)\]/\1/p' "$df")
[[ "$hc" == '"actionbase",'* ]] || fail "Dockerfile HEALTHCHECK does not run the actionbase console"
# shellcheck disable=SC2046
check_flags actionbase "Dockerfile HEALTHCHECK" $(flags_of "$hc")

# ---- systemd unit ----
unit="$top/deploy/systemd/actionbased.service"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
bin_path=${exec_start%% *}
[ "$bin_path" = /usr/local/bin/actionbased ] \
  || fail "unit: ExecStart runs $bin_path, not the installed /usr/local/bin/actionbased"
# shellcheck disable=SC2046
check_flags actionbased "unit ExecStart" $(flags_of "$exec_start")
for key in DynamicUser=yes ProtectSystem=strict NoNewPrivileges=yes StateDirectory=actionbase; do
  grep -q "^$key" "$unit" || fail "unit lacks $key"
done
if command -v systemd-analyze >/dev/null; then
  unit_dir=$(mktemp -d)
  # The unit names the installed path; verify it against the built binary.
  sed "s|/usr/local/bin/actionbased|$build/src/actionbased|" "$unit" > "$unit_dir/actionbased.service"
  out=$(systemd-analyze verify --man=no "$unit_dir/actionbased.service" 2>&1) \
    || { echo "$out" >&2; fail "systemd-analyze verify"; }
  rm -rf "$unit_dir"
else
  note "systemd-analyze is not installed: the unit's syntax is not verified"
fi

# ---- Kubernetes manifests and compose.yaml ----
if python3 -c 'import yaml' 2>/dev/null; then
  python3 - "$top" "$help_dir" > "$help_dir/conf-texts" <<'EOF' || failed=1
import os, re, sys, yaml
top, helps = sys.argv[1], sys.argv[2]
bad = 0
def fail(msg):
    global bad
    print("check-deploy: FAIL: " + msg, file=sys.stderr)
    bad = 1
def has_flag(binary, flag):
    text = open(os.path.join(helps, binary)).read()
    return re.search(r"(^|[ ,])" + re.escape(flag) + r"([=, ]|$)", text, re.M) is not None
def check_argv(where, binary, args):
    if binary not in ("actionbased", "actionbase", "actionbase-verify"):
        return fail(f"{where}: {binary} is not a binary the build installs")
    for a in args:
        m = re.match(r"(--?[A-Za-z][A-Za-z-]*)", a)
        if m and not has_flag(binary, m.group(1)):
            fail(f"{where}: {binary} has no option {m.group(1)}")
def load(path):
    try:
        with open(path) as f:
            return [d for d in yaml.safe_load_all(f) if d is not None]
    except yaml.YAMLError as e:
        fail(f"{os.path.relpath(path, top)}: {e}")
        return []
def pod_specs(doc):
    spec = doc.get("spec", {})
    if doc["kind"] == "CronJob":
        return spec["jobTemplate"]["spec"], spec["jobTemplate"]["spec"]["template"]
    return spec, spec.get("template")

k8s = os.path.join(top, "deploy", "k8s")
docs = []
for name in sorted(os.listdir(k8s)):
    if name.endswith(".yaml"):
        for d in load(os.path.join(k8s, name)):
            docs.append((name, d))
configmaps = {}
for name, d in docs:
    for field in ("apiVersion", "kind"):
        if field not in d:
            fail(f"{name}: a document without {field}")
    if d.get("kind") == "Kustomization":
        for r in d.get("resources", []):
            if not os.path.exists(os.path.join(k8s, r)):
                fail(f"{name}: resource {r} does not exist")
        continue
    if not d.get("metadata", {}).get("name"):
        fail(f"{name}: a {d.get('kind')} without metadata.name")
    if d.get("kind") == "ConfigMap":
        configmaps[d["metadata"]["name"]] = d.get("data", {})
for name, d in docs:
    kind = d.get("kind")
    if kind == "ConfigMap":
        for key, text in d.get("data", {}).items():
            if key.endswith(".conf"):
                print(f"{name}:{key}\0{text}\0", end="")
    if kind == "Service":
        sel = d["spec"].get("selector", {})
        pods = [t for n, t in docs if t.get("kind") == "Deployment"
                and sel.items() <= t["spec"]["template"]["metadata"].get("labels", {}).items()]
        if not pods:
            fail(f"{name}: Service {d['metadata']['name']} selects no Deployment's pods")
    if kind not in ("Deployment", "Job", "CronJob"):
        continue
    where = f"{name}: {kind} {d['metadata']['name']}"
    spec, template = pod_specs(d)
    labels = template.get("metadata", {}).get("labels", {})
    match = spec.get("selector", {}).get("matchLabels")
    if match is not None and not match.items() <= labels.items():
        fail(f"{where}: selector {match} does not match the pod labels {labels}")
    pod = template["spec"]
    for v in pod.get("volumes", []):
        cm = v.get("configMap")
        if cm is not None:
            data = configmaps.get(cm["name"])
            if data is None:
                fail(f"{where}: volume {v['name']} mounts unknown ConfigMap {cm['name']}")
            for item in cm.get("items", []):
                if data is not None and item["key"] not in data:
                    fail(f"{where}: ConfigMap {cm['name']} has no key {item['key']}")
    for c in pod["containers"]:
        argv = c.get("command", []) + c.get("args", [])
        if not argv:
            fail(f"{where}: container {c['name']} relies on the image's entrypoint")
            continue
        check_argv(f"{where} container {c['name']}", argv[0], argv[1:])
        ports = {p.get("name") for p in c.get("ports", [])}
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            port = c.get(probe, {}).get("httpGet", {}).get("port")
            if isinstance(port, str) and port not in ports:
                fail(f"{where}: {probe} uses port {port}, which the container does not name")
        for e in c.get("env", []):
            ref = e.get("valueFrom", {}).get("configMapKeyRef")
            if ref and ref["key"] not in configmaps.get(ref["name"], {}):
                fail(f"{where}: env {e['name']} reads missing key {ref['name']}/{ref['key']}")
        if argv[0] == "actionbase-verify":
            shard = [a for a in argv if a.startswith("--shard=")]
            n = shard[0].rsplit("/", 1)[1] if shard else None
            if spec.get("completionMode") != "Indexed":
                fail(f"{where}: the verifier's Job is not Indexed")
            if not shard or not shard[0].startswith("--shard=$(JOB_COMPLETION_INDEX)/"):
                fail(f"{where}: the verifier does not shard by JOB_COMPLETION_INDEX")
            elif str(spec.get("completions")) != n:
                fail(f"{where}: completions {spec.get('completions')} but --shard=K/{n}")

compose = load(os.path.join(top, "deploy", "compose.yaml"))
for d in compose:
    for sname, svc in d.get("services", {}).items():
        build = svc.get("build")
        if isinstance(build, dict):
            ctx = os.path.normpath(os.path.join(top, "deploy", build.get("context", ".")))
            if not os.path.exists(os.path.join(ctx, build.get("dockerfile", "Dockerfile"))):
                fail(f"compose.yaml: {sname} builds from a Dockerfile that does not exist")
            check_argv(f"compose.yaml {sname} command", "actionbased", svc.get("command", []))
        test = svc.get("healthcheck", {}).get("test", [])
        if len(test) > 1 and test[0] == "CMD" and test[1].startswith("actionbase"):
            check_argv(f"compose.yaml {sname} healthcheck", test[1], test[2:])
sys.exit(bad)
EOF
  # The ConfigMaps' config files, NUL-separated (name, text) pairs.
  while IFS= read -r -d '' where && IFS= read -r -d '' text; do
    check_config_text "$where" <<<"$text"
  done < "$help_dir/conf-texts"
else
  no_yaml=1
fi
if command -v kubeconform >/dev/null && [ -n "${AB_K8S_SCHEMAS:-}" ]; then
  kubeconform -strict -summary -schema-location "$AB_K8S_SCHEMAS" -skip Kustomization \
    "$top"/deploy/k8s/*.yaml >&2 || fail "kubeconform rejected deploy/k8s"
else
  note "kubeconform with local schemas (AB_K8S_SCHEMAS) not available: no Kubernetes schema validation"
fi

[ "$failed" = 0 ] || exit 1
if [ -n "${no_yaml:-}" ]; then
  echo "SKIP: python3 has no PyYAML (Debian: python3-yaml): deploy/k8s and compose.yaml not checked" >&2
  exit 77
fi
note "all deploy checks passed"
