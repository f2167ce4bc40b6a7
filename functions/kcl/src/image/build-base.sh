#!/usr/bin/env bash
# Builds the KCL worker image's base for one platform, without Docker or a registry: the Debian 13
# packages pinned in debian-packages.lock (downloaded once into a cache, each checked against its
# SHA-256), unpacked with dpkg-deb into a root file system like distroless's java base (glibc,
# libgcc, libstdc++, zlib, CA certificates as a Java trust store, time zones, netbase, OpenJDK 21
# JRE headless, each package's copyright file; no shell, no package manager), a non-root user 65532 (nonroot), written as one
# reproducible layer (sorted, fixed mtime, numeric owners) in a docker-save tarball that Jib takes as
# its base (from.image = tar://...).
#
# usage: build-base.sh ARCH (amd64|arm64) OUT_DIR CACHE_DIR
set -euo pipefail

arch=${1:?architecture: amd64 or arm64}
out=${2:?output folder}
cache=${3:?download cache folder}
here=$(cd "$(dirname "$0")" && pwd)
mirror=${SLUICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
lock="$here/debian-packages.lock"
epoch=1 # every file's mtime in the layer (Jib's own layers use 1 s after the epoch too)

case "$arch" in
  amd64) loader_dir=usr/lib64 ;;
  arm64) loader_dir= ;;
  *) echo "build-base: unknown architecture '$arch' (amd64 or arm64)" >&2; exit 2 ;;
esac
for tool in curl sha256sum dpkg-deb tar java; do
  command -v "$tool" >/dev/null || { echo "build-base: $tool is missing" >&2; exit 1; }
done

mkdir -p "$out" "$cache"
root="$out/rootfs-$arch"
rm -rf "$root"
mkdir -p "$root"

# ---- the pinned packages: download (once), verify, unpack
while read -r pkg_arch name version sha path; do
  [[ -z "$pkg_arch" || "$pkg_arch" == \#* ]] && continue
  [[ "$pkg_arch" == "$arch" || "$pkg_arch" == all ]] || continue
  deb="$cache/$(basename "$path")"
  if [[ ! -f "$deb" ]] || ! echo "$sha  $deb" | sha256sum --check --status; then
    if ! curl -fsSL --retry 3 --max-time 300 -o "$deb.part" "$mirror/$path"; then
      echo "build-base: cannot download $name $version ($mirror/$path): the mirror may have replaced it with a newer version; refresh debian-packages.lock (functions/kcl/README.md, \"The worker image\")" >&2
      exit 1
    fi
    mv "$deb.part" "$deb"
  fi
  if ! echo "$sha  $deb" | sha256sum --check --status; then
    echo "build-base: $deb does not have the SHA-256 pinned in debian-packages.lock ($sha)" >&2
    rm -f "$deb"
    exit 1
  fi
  dpkg-deb -x "$deb" "$root"
done <"$lock"

# ---- what the packages' maintainer scripts and base-files would have made
jvm=usr/lib/jvm/java-21-openjdk-$arch
[[ -x "$root/$jvm/bin/java" ]] || { echo "build-base: no $jvm/bin/java in the unpacked packages" >&2; exit 1; }
# merged /usr, as Debian 13's base-files makes it (the ELF interpreter is /lib/ld-linux-aarch64.so.1
# or /lib64/ld-linux-x86-64.so.2)
ln -s usr/bin "$root/bin"
ln -s usr/lib "$root/lib"
ln -s usr/sbin "$root/sbin"
[[ -n "$loader_dir" ]] && ln -s "$loader_dir" "$root/lib64"
mkdir -p "$root/usr/bin" "$root/usr/sbin"
ln -s "/$jvm/bin/java" "$root/usr/bin/java" # update-alternatives' job
# the trust store ca-certificates-java would have written (the JRE's lib/security/cacerts points to it)
mkdir -p "$root/etc/ssl/certs/java"
java "$here/TrustStore.java" "$root/usr/share/ca-certificates" "$root/etc/ssl/certs/java/cacerts"
mkdir -p "$root/etc"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
ln -sf /usr/share/zoneinfo/Etc/UTC "$root/etc/localtime"
printf 'Etc/UTC\n' >"$root/etc/timezone"
mkdir -p "$root/tmp" "$root/root" "$root/home/nonroot" "$root/deployments"
chmod 1777 "$root/tmp"
chmod 700 "$root/root"
# documentation and manual pages are not needed at run time; the packages' licences
# (/usr/share/doc/*/copyright) stay, as in distroless (gcc-14-base carries libgcc's and libstdc++'s)
find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright ! -type l -delete
find "$root/usr/share/doc" -mindepth 1 -depth -type d -empty -delete
rm -rf "$root/usr/share/man" "$root/usr/share/lintian"

# ---- one layer: root-owned, but the user's home and the application folder belong to nonroot
layer="$out/base-$arch-layer.tar"
tar_opts=(--format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime
  --sort=name --mtime=@$epoch --numeric-owner --no-acls --no-xattrs --no-selinux)
(cd "$root" && tar "${tar_opts[@]}" --owner=0 --group=0 --exclude=./home/nonroot --exclude=./deployments -cf "$layer" .)
(cd "$root" && tar "${tar_opts[@]}" --owner=65532 --group=65532 -rf "$layer" ./home/nonroot ./deployments)
diff_id=sha256:$(sha256sum "$layer" | cut -d' ' -f1)

# ---- docker-save tarball: manifest.json, the image configuration, the layer
image="$out/image-$arch"
rm -rf "$image" && mkdir -p "$image"
mv "$layer" "$image/layer.tar"
cat >"$image/config.json" <<JSON
{"architecture":"$arch","os":"linux","created":"1970-01-01T00:00:01Z",
 "config":{"User":"65532:65532","WorkingDir":"/deployments",
  "Env":["PATH=/usr/local/bin:/usr/bin:/bin","JAVA_HOME=/$jvm","LANG=C.UTF-8","TZ=Etc/UTC"]},
 "rootfs":{"type":"layers","diff_ids":["$diff_id"]},
 "history":[{"created":"1970-01-01T00:00:01Z","created_by":"functions/kcl/src/image/build-base.sh $arch (debian-packages.lock)"}]}
JSON
printf '[{"Config":"config.json","RepoTags":["sluice-kcl-base:%s"],"Layers":["layer.tar"]}]\n' "$arch" >"$image/manifest.json"
(cd "$image" && tar "${tar_opts[@]}" --owner=0 --group=0 -cf "$out/base-$arch.tar" manifest.json config.json layer.tar)
rm -rf "$image" "$root"
echo "build-base: $out/base-$arch.tar layer $diff_id"
