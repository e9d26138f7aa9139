#!/bin/sh
# tests/postfix/fetch.sh - obtains Postfix's source through a private apt
# configuration and caches the unpacked tree under build/ (issue 14).
#
# Owns: the download of Debian's source package `postfix` (bookworm) for the
# differential harness.  Nothing of the machine's apt setup is used or
# changed except the system's trusted Debian archive keyring, which
# authenticates the index files: apt checks the signed InRelease file, the
# Sources index's hash, and the hashes of the .dsc and the tarballs;
# dpkg-source then checks the tarballs against the .dsc's checksums while
# unpacking.  The private configuration lives in build/postfix/apt:
#   etc/sources.list   one deb-src line (bookworm, deb.debian.org)
#   state/, cache/     apt's lists and archives
# The unpacked tree goes to build/postfix/src (a symlink to postfix-X.Y.Z),
# and build/postfix/VERSION names the Debian version.  Later runs find the
# tree and do not touch the network.
#
# usage: sh tests/postfix/fetch.sh [BUILD_DIR]     (default: build)
# Environment: POSTFIX_SUITE (default bookworm), POSTFIX_MIRROR (default
# http://deb.debian.org/debian), POSTFIX_KEYRING (default the Debian
# archive keyring).  Exit 0 with the tree in place, 1 otherwise.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
base=$build/postfix
suite=${POSTFIX_SUITE:-bookworm}
mirror=${POSTFIX_MIRROR:-http://deb.debian.org/debian}
keyring=${POSTFIX_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

if [ -f "$base/src/src/qmgr/qmgr_job.c" ] && [ -f "$base/VERSION" ]; then
    exit 0   # cached: offline from here on
fi
for tool in apt-get dpkg-source; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "fetch: $tool is missing (apt-get install dpkg-dev)" >&2
        exit 1
    fi
done
if [ ! -r "$keyring" ]; then
    echo "fetch: no Debian archive keyring at $keyring" >&2
    exit 1
fi

apt=$base/apt
mkdir -p "$apt/etc/sources.list.d" "$apt/etc/preferences.d" \
    "$apt/etc/trusted.gpg.d" "$apt/state/lists/partial" \
    "$apt/cache/archives/partial" "$base/dl"
echo "deb-src [signed-by=$keyring] $mirror $suite main" >"$apt/etc/sources.list"
: >"$apt/state/status"
# Every path apt reads or writes is under $apt; the keyring is named by
# signed-by; the sandbox user is the caller (root cannot hand the private
# directories to _apt without changing their owner).
set -- -o Dir::Etc="$apt/etc" \
    -o Dir::Etc::sourcelist="$apt/etc/sources.list" \
    -o Dir::Etc::sourceparts="$apt/etc/sources.list.d" \
    -o Dir::Etc::preferences="$apt/etc/preferences" \
    -o Dir::Etc::preferencesparts="$apt/etc/preferences.d" \
    -o Dir::Etc::trusted="$apt/etc/trusted.gpg" \
    -o Dir::Etc::trustedparts="$apt/etc/trusted.gpg.d" \
    -o Dir::State="$apt/state" \
    -o Dir::State::status="$apt/state/status" \
    -o Dir::Cache="$apt/cache" \
    -o Debug::NoLocking=1 \
    -o APT::Sandbox::User="$(id -un)" \
    -o Acquire::Retries=3
echo "fetch: apt-get update (private configuration in $apt)"
apt-get -q "$@" update >"$apt/update.log" 2>&1 || {
    cat "$apt/update.log" >&2
    echo "fetch: apt-get update failed" >&2
    exit 1
}
rm -rf "$base/dl"
mkdir -p "$base/dl"
echo "fetch: apt-get source postfix"
(cd "$base/dl" && apt-get -q "$@" source postfix) >"$apt/source.log" 2>&1 || {
    cat "$apt/source.log" >&2
    echo "fetch: apt-get source postfix failed" >&2
    exit 1
}
dsc=$(find "$base/dl" -maxdepth 1 -name 'postfix_*.dsc' | head -1)
dir=$(find "$base/dl" -mindepth 1 -maxdepth 1 -type d -name 'postfix-*' | head -1)
if [ -z "$dsc" ] || [ -z "$dir" ] || [ ! -f "$dir/src/qmgr/qmgr_job.c" ]; then
    cat "$apt/source.log" >&2
    echo "fetch: no unpacked postfix tree in $base/dl" >&2
    exit 1
fi
# dpkg-source unpacked it, which verifies every file listed in the .dsc
# against its checksums; say so in the log, with the version.
version=$(sed -n 's/^Version: *//p' "$dsc" | head -1)
grep -q 'extracting postfix in' "$apt/source.log" || {
    cat "$apt/source.log" >&2
    echo "fetch: dpkg-source did not extract the package" >&2
    exit 1
}
ln -sfn "dl/$(basename "$dir")" "$base/src"
echo "$version" >"$base/VERSION"
echo "fetch: postfix $version unpacked in $dir"
