#!/usr/bin/env bash
# Source it: puts Node.js 24 LTS first on PATH, taken from the npm registry's node-linux-<arch> package
# (the official binary inside an npm tarball, so it installs where only the npm registry is reachable).
# Native modules built from source then use its headers (npm_config_nodedir).
NODE24_VERSION=24.21.0

node24_arch() {
  case "$(uname -m)" in
    x86_64) echo x64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) echo "node24: no node-linux package for $(uname -m)" >&2; return 1 ;;
  esac
}

node24_install() {
  local arch dir tmp
  arch=$(node24_arch) || return 1
  dir="${FLOWMESH_CACHE_DIR:-$HOME/.cache/flowmesh}/node-v$NODE24_VERSION-linux-$arch"
  if [ ! -x "$dir/bin/node" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-$arch@$NODE24_VERSION" > /dev/null) || { rm -rf "$tmp"; return 1; }
    mkdir -p "$dir"
    tar xzf "$tmp"/node-linux-"$arch"-*.tgz -C "$dir" --strip-components=1 || { rm -rf "$tmp" "$dir"; return 1; }
    rm -rf "$tmp"
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
}

node24_install && echo "node24: using $(node --version) from $(dirname "$(command -v node)")"
