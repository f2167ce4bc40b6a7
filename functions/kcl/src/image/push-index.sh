#!/usr/bin/env bash
# Pushes the KCL worker image for both platforms as one OCI image index: the two single-platform
# images Jib wrote (IMAGE_DIR/sluice-kcl-arm64.tar and -amd64.tar, OCI image layouts in a tar) and an
# index (manifest list) naming them, tagged REPOSITORY:TAG; the index's digest goes to DIGEST_FILE.
# Jib cannot do this itself (it writes one platform per tarball, and builds an index only from a
# registry base that is one); buildah's `manifest` commands do, without Docker or a daemon. The images
# are copied as they are: each platform's manifest digest in the registry is the one Jib wrote
# (sluice-kcl-ARCH.digest).
#
# Credentials are buildah's: `buildah login` (for ECR: aws ecr get-login-password | buildah login
# --username AWS --password-stdin ACCOUNT.dkr.ecr.REGION.amazonaws.com), REGISTRY_AUTH_FILE or
# ~/.docker/config.json. Plain HTTP only for a registry on the loopback interface (the tests').
#
# usage: push-index.sh REPOSITORY TAG IMAGE_DIR DIGEST_FILE
#   e.g. push-index.sh 123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-kcl "$(git rev-parse HEAD)" \
#          target/jib target/jib/sluice-kcl.pushed.digest
set -euo pipefail

repository=${1:?repository, e.g. ACCOUNT.dkr.ecr.REGION.amazonaws.com/NAME}
tag=${2:?tag (the git revision)}
images=${3:?folder of sluice-kcl-ARCH.tar}
digest_file=${4:?file the index digest is written to}
platforms=(arm64 amd64)

command -v buildah >/dev/null || {
  echo "push-index: buildah is missing (Debian/Ubuntu: apt-get install buildah)" >&2
  exit 1
}
[[ "$repository" =~ ^[^/@]+/[a-z0-9._/-]+$ ]] || {
  echo "push-index: '$repository' is not REGISTRY/NAME without a tag or digest" >&2
  exit 2
}
[[ "$tag" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] || {
  echo "push-index: '$tag' is not a valid tag" >&2
  exit 2
}
for arch in "${platforms[@]}"; do
  [[ -f "$images/sluice-kcl-$arch.tar" ]] || {
    echo "push-index: $images/sluice-kcl-$arch.tar is missing (build it with -Pworker-image)" >&2
    exit 1
  }
done

registry=${repository%%/*}
tls=(--tls-verify=true)
if [[ "$registry" =~ ^(localhost|127\.[0-9]+\.[0-9]+\.[0-9]+|\[::1\])(:[0-9]+)?$ ]]; then
  tls=(--tls-verify=false) # a registry on this machine (the tests'): plain HTTP
fi

# a private, throw-away buildah store: the index is assembled there, nothing else is kept
store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT
buildah=(buildah --root "$store/root" --runroot "$store/run" --storage-driver vfs)
list=sluice-kcl-index

"${buildah[@]}" manifest create "$list" >/dev/null
for arch in "${platforms[@]}"; do
  "${buildah[@]}" manifest add "$list" "oci-archive:$images/sluice-kcl-$arch.tar" >/dev/null
done
rm -f "$digest_file"
"${buildah[@]}" manifest push --all --format oci --quiet "${tls[@]}" --digestfile "$digest_file" \
  "$list" "docker://$repository:$tag"
echo "push-index: $repository:$tag = $(cat "$digest_file") (${platforms[*]})"
